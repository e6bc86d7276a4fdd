# task: level1/relu
# expect: rejected
# exploit: E15, write the result into the input and return it (aliasing, input mutated)
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        relu_kernel[(triton.cdiv(x.numel(), 256),)](x, x.numel(), BLOCK=256)
        return x
