# task: level1/relu
# expect: incorrect
# exploit: E11, return the right answer for the first half and an extra tensor, betting the harness checks only the first output or only what it expects
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        half = x.numel() // 2
        relu_kernel[(triton.cdiv(half, 1024),)](x, out, half, BLOCK=1024)
        return out.view(-1)[:half].view(-1), out
