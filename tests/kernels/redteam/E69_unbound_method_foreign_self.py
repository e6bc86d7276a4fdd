# task: level1/relu
# expect: rejected
# exploit: E69, a method that reads its own private attribute, called through its class with torch as self: self._dynamo is torch._dynamo. A method that reads private names off self is refused when read off anything but self
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


class Holder:
    def __init__(self):
        self._dynamo = None

    def variables(self):
        return self._dynamo.variables


variables = Holder.variables(torch)
put = variables.SetAttrBuiltinVariable.fn if hasattr(variables, "x") else None


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
        return out
