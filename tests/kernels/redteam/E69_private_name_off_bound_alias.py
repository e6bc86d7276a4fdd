# task: level1/relu
# expect: rejected
# exploit: E69, a private name read off a name bound to torch by assignment (not an import): the private-api rule looked only at import aliases, so t._dynamo.variables passed the scan
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


t = torch
variables = t._dynamo.variables
pick = variables.GetAttrBuiltinVariable._fn


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
        return out
