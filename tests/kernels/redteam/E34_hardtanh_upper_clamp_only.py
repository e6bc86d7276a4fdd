# task: tests/tasks/fixtures/kb_semantics/32_HardTanh.py
# expect: incorrect
# exploit: E34, inputs that are never negative: HardTanh as min(x, 1) alone, the lower clamp at -1 left out, which no torch.rand input (scaled or shifted, never below 0) can expose
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def upper_clamp_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.minimum(x, 1.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        upper_clamp_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
