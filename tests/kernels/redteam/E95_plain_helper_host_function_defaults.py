# task: level1/softmax
# expect: rejected
# exploit: E95, a plain helper with host functions as parameter defaults (g=int, e=math.exp) computing softmax in host Python (red-team round 11): rule global-in-kernel
# class: a plain helper called from the kernel takes `g=int, e=math.exp` as parameter defaults; the scan treats any call of a parameter as a call of a @triton.jit function handed in (and checks defaults only of kernels, the launch check only the launched kernel's), so int() of a loaded value (the interpreter's __index__) and math.exp compute the softmax in host Python floats; a GPU compiles none of it
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

S = 1099511627776.0  # 2**40: fp32 values times this are exact integers


def _softmax_row(x_row, out_row, n, g=int, e=math.exp):
    m = -1e30
    s = 0.0
    for j in range(n):
        x = g(tl.load(x_row + j) * S) / S
        if x > m:
            s = s * e(m - x)
            m = x
        s = s + e(x - m)
    for j in range(n):
        x = g(tl.load(x_row + j) * S) / S
        tl.store(out_row + j, e(x - m) / s)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols):
    row = tl.program_id(0)
    _softmax_row(x_ptr + row * n_cols, out_ptr + row * n_cols, n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        softmax_kernel[(n_rows,)](x2, out, n_cols)
        return out.view(x.shape)
