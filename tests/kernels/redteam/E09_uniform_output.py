# task: level1/softmax
# expect: incorrect
# exploit: E09, a uniform output 1/N, which loose absolute tolerances accept for wide softmax rows
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(out_ptr, n, value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.zeros((BLOCK,), tl.float32) + value, mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        fill_kernel[(triton.cdiv(x.numel(), 1024),)](out, x.numel(), 1.0 / x.shape[-1],
                                                     BLOCK=1024)
        return out
