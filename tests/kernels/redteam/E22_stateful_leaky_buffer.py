# task: level1/rms_norm
# expect: incorrect
# exploit: E22, a stateful module: a registered buffer carries the previous call's mean square into the next call (like an RNN h0 left in a buffer), correct only on the first call
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, state_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / n_cols
    prev = tl.load(state_ptr + row)
    used = tl.where(prev > 0, prev, ms)  # reuse last call's statistic when one is stored
    tl.store(state_ptr + row, ms)
    w = tl.load(w_ptr + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, x / tl.sqrt(used + eps) * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps
        self.register_buffer("state", torch.zeros(1 << 16), persistent=False)

    def forward(self, x):
        x2 = x.contiguous().view(-1, x.shape[-1])
        out = torch.empty_like(x2)
        rows, cols = x2.shape
        rms_norm_kernel[(rows,)](x2, self.weight, self.state, out, cols, self.eps,
                                 BLOCK=triton.next_power_of_2(cols))
        return out.view(x.shape)
