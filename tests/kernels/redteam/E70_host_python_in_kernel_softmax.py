# task: level1/softmax
# expect: rejected
# exploit: E70, under the CPU interpreter a kernel body is plain Python: float(str(tl.load(p))) and math.exp computed the softmax on the host in float64 (red-team round 3); a GPU compiles none of it. Refused by host-python-in-kernel
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    vals = []
    for j in range(n_cols):
        # under the interpreter str() of a loaded scalar is its NumPy repr: the value
        vals.append(float(str(tl.load(x_ptr + row * n_cols + j)).strip("[]")))
    exps = []
    for j in range(n_cols):
        exps.append(math.exp(vals[j]))
    total = math.fsum(exps)
    for j in range(n_cols):
        tl.store(out_ptr + row * n_cols + j, exps[j] / total)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        softmax_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
