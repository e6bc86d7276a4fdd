# task: level1/sigmoid
# expect: passed
# Honest (round 10): globals as tl.constexpr(...), the form Triton asks for, read as host objects before.
# Sigmoid through exp2; the constants are module-level tl.constexpr globals (the form
# Triton requires for globals read inside a kernel).
import torch
import torch.nn as nn
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)
BLOCK = tl.constexpr(1024)


@triton.jit
def sigmoid_exp2_kernel(x_ptr, y_ptr, n_elements):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = (1.0 / (1.0 + tl.exp2(-x * LOG2E))).to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        sigmoid_exp2_kernel[(triton.cdiv(n, BLOCK.value),)](x, y, n)
        return y
