# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E25, a torch.Tensor subclass made with type() (no class statement) whose detach() does the real work with torch, after the op guard has exited
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def noop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offsets, mask=offsets < n)


def _late_detach(self):
    plain = torch.Tensor.as_subclass(self, torch.Tensor)
    return torch.relu(plain.detach())


Lazy = type("Lazy", (torch.Tensor,), {"detach": _late_detach})


class ModelNew(nn.Module):
    def forward(self, x):
        noop_kernel[(1,)](x, 0, BLOCK=16)
        return x.clone().as_subclass(Lazy)
