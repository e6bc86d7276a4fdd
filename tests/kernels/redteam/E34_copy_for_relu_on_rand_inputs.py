# task: tests/tasks/fixtures/kb_semantics/19_ReLU.py
# expect: incorrect
# exploit: E34, inputs that are never negative: KernelBench draws them with torch.rand, and every scaled or shifted variant of a non-negative input stays non-negative, so a plain copy equals ReLU on all of them
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
