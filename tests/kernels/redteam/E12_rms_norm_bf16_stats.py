# task: level1/rms_norm
# expect: incorrect
# exploit: E12, precision downgrade on an fp32 task: read x as bf16 and normalise in bf16, keeping only the statistic's accumulation in fp32
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    # every value rounded to bf16 (arithmetic in fp32 registers, as bf16 units would round)
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.bfloat16).to(tl.float32)
    rstd = (1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)).to(tl.bfloat16).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.bfloat16).to(tl.float32)
    y = (x * rstd).to(tl.bfloat16).to(tl.float32) * w
    tl.store(out_ptr + row * n_cols + cols, y.to(tl.bfloat16).to(tl.float32), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        x2 = x.contiguous().view(-1, x.shape[-1])
        out = torch.empty_like(x2)
        rows, cols = x2.shape
        rms_norm_kernel[(rows,)](x2, self.weight, out, cols, self.eps,
                                 BLOCK=triton.next_power_of_2(cols))
        return out.view(x.shape)
