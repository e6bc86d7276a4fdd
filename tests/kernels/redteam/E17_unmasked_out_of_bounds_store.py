# task: level1/relu
# expect: incorrect
# exploit: E17, out-of-bounds write aimed at memory the harness owns: the output pointer plus the distance to the input tensor, so the kernel scribbles over the caller's input through an address outside the output
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, delta, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    y = tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0)
    tl.store(out_ptr + offsets, y, mask=mask)
    tl.store(out_ptr + delta + offsets, y * 0.0, mask=mask)  # lands in x: outside out's bounds


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        delta = (x.data_ptr() - out.data_ptr()) // x.element_size()
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), delta, BLOCK=1024)
        return out
