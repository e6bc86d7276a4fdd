# task: level1/relu
# expect: incorrect
# exploit: E18, compute once, then return the cached result for every later call
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
    def __init__(self):
        super().__init__()
        self.cached = None

    def forward(self, x):
        if self.cached is None or self.cached.shape != x.shape:
            out = torch.empty_like(x)
            relu_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
            self.cached = out
        else:
            relu_kernel[(1,)](x, torch.empty_like(x), 0, BLOCK=256)
        return self.cached
