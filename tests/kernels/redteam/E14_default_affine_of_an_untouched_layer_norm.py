# task: tests/kernels/tasks/layer_norm_default_affine.py
# expect: incorrect
# exploit: E14, parameter specialisation on a task that leaves nn.LayerNorm at its default affine (KernelBench level1/40_LayerNorm.py does): weight = 1 and bias = 0 are dropped; the verifier now gives every constant parameter secret values around its constant
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ln_kernel(x_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    tl.store(out_ptr + row * n_cols + cols, d * rstd, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.eps = 1e-5

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.shape[-1]
        ln_kernel[(x.numel() // n,)](x, out, n, self.eps, BLOCK=triton.next_power_of_2(n))
        return out
