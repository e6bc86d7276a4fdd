# task: level1/relu
# expect: rejected
# exploit: E03, fall back to PyTorch when the kernel fails
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets))


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        try:
            relu_kernel[(1,)](x, out, x.numel(), BLOCK=7)
        except Exception:
            return torch.relu(x)
        return out
