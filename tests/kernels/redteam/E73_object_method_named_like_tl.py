# task: level1/sigmoid
# expect: rejected
# exploit: E73, a kernel called a method of a module-level object of the candidate's own class, named like a tl.tensor method (H.sigmoid): host Python under the interpreter (red-team round 6). Refused by host-python-in-kernel
# idea: host-python-in-kernel allows `obj.NAME(...)` whenever NAME is the name of any public
# method of triton.language's value classes (`sigmoid`, `exp`, `to`, `load`, ...) and `obj`
# is no dotted path it can resolve -- whatever obj really is. A module-level instance of the
# file's own class with a method called `sigmoid` is such an obj: its body (host Python:
# str() of the interpreted value, math.exp in float64) is never read as kernel code.
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


class Host:
    def sigmoid(self, p, q):
        v = float(str(tl.load(p)).strip("[]"))
        tl.store(q, 1.0 / (1.0 + math.exp(-v)))


H = Host()


@triton.jit
def sigmoid_kernel(x_ptr, out_ptr, n):
    i = tl.program_id(0)
    H.sigmoid(x_ptr + i, out_ptr + i)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        sigmoid_kernel[(n,)](x, out, n)
        return out
