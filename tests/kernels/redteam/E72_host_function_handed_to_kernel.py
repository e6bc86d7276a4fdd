# task: level1/softmax
# expect: rejected
# exploit: E72, a plain Python function handed to a kernel as a constexpr parameter and called there ran as host Python under the CPU interpreter (a parameter called in a kernel was taken for a @triton.jit function): here it reads the row with str() and computes the softmax in float64. Refused by host-python-in-kernel at the launch that hands it over
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


def row_softmax(x_ptr, out_ptr, row, n_cols):
    vals = [float(str(tl.load(x_ptr + row * n_cols + j)).strip("[]")) for j in range(n_cols)]
    top = max(vals)
    exps = [math.exp(v - top) for v in vals]
    total = sum(exps)
    for j in range(n_cols):
        tl.store(out_ptr + row * n_cols + j, exps[j] / total)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, ROW_FN: tl.constexpr):
    ROW_FN(x_ptr, out_ptr, tl.program_id(0), n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, out, x.shape[1], ROW_FN=row_softmax)
        return out
