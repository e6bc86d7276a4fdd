# task: level1/relu
# expect: rejected
# exploit: E01, under TRITON_INTERPRET the kernel body is plain Python: it calls torch.relu on tensors smuggled through a module global, inside the launch where the op guard looks away
import torch
import torch.nn as nn
import triton
import triton.language as tl

STASH = {}


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    STASH["out"].copy_(torch.relu(STASH["x"]))


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        STASH["x"], STASH["out"] = x, out
        relu_kernel[(1,)](x, out, x.numel(), BLOCK=16)
        return out
