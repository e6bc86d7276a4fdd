# task: level1/relu
# expect: incorrect
# Prints 40 MB while computing the wrong thing: the flood must not disturb the verifier.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.abs(tl.load(x_ptr + offsets, mask=mask)), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        print(("passed " * 1000 + "\n") * 5000, end="")
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
        return out
