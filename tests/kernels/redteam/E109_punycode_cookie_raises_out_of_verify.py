# coding: punycode
# task: level1/relu
# expect: rejected
# exploit: E109, a coding cookie naming a codec whose decoder raises UnicodeError (not UnicodeDecodeError) and is quadratic in a run of digits: the trusted side decoded the file with it before any deadline, and verify() raised (no verdict, --json printed nothing)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.where(x > 0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
