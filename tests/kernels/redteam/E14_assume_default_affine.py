# task: level1/layer_norm
# expect: incorrect
# exploit: E14, parameter specialisation: keep the affine out of the state_dict (non-persistent buffers) so the reference's are never loaded, and assume LayerNorm's default weight = 1, bias = 0 (renamed parameters now get the reference's values by shape, so renaming alone no longer hides them)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, d * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps=1e-5):
        super().__init__()
        self.register_buffer("gamma", torch.ones(hidden), persistent=False)
        self.register_buffer("beta", torch.zeros(hidden), persistent=False)
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        layer_norm_kernel[(rows,)](x, self.gamma, self.beta, out, cols, self.eps,
                                   BLOCK=triton.next_power_of_2(cols))
        return out
