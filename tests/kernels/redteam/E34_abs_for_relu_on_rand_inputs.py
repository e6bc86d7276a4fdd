# task: tests/tasks/fixtures/kb_semantics/19_ReLU.py
# expect: incorrect
# exploit: E34, inputs that are never negative: |x| equals ReLU wherever no value is negative; a kernel that treats the sign wrongly (here: as if negative values were positive) passes every non-negative variant
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def abs_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.abs(x), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        abs_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
