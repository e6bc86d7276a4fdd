# task: level1/relu
# expect: runtime_error
# layer: runtime
# exploit: E107 (red-team round 14), one store of 2*BLOCK lanes onto BLOCK addresses, each address written by two lanes of the program with different values (a wrong value by the lower lane, relu by the upper): the interpreter writes the lanes in order, so the upper lane always wins and the output is exact on the CPU; on a GPU the two lanes are in different warps and which store lands last is not defined
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    lanes = tl.arange(0, 2 * BLOCK)
    offsets = tl.program_id(0) * BLOCK + (lanes % BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    value = tl.where(lanes >= BLOCK, tl.maximum(x, 0.0), x * 3.0 - 1.0)
    tl.store(out_ptr + offsets, value, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
        return out
