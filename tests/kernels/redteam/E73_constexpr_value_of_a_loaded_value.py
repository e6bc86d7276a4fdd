# task: level1/silu
# expect: rejected
# exploit: E73, .value of tl.constexpr(tl.load(p)) counted as compile-time: str, float and math.exp computed SiLU on the host (red-team round 6). .value only of compile-time values now
# idea: host-python-in-kernel lets host calls through when every value they read is known
# at compile time, and `_all_static` counts ANY `X.value` (or .shape, .dtype, .type, .scalar,
# ...) as compile-time whatever X is. `tl.constexpr(tl.load(p)).value` is the loaded,
# interpreted value: str() of it, float() and math.exp then compute SiLU on the host, inside
# the decorated kernel itself, and the rule calls it compile-time arithmetic.
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, out_ptr, n):
    i = tl.program_id(0)
    tl.store(out_ptr + i,
             float(str(tl.constexpr(tl.load(x_ptr + i)).value).strip("[]"))
             / (1.0 + math.exp(-float(str(tl.constexpr(tl.load(x_ptr + i)).value).strip("[]")))))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        silu_kernel[(n,)](x, out, n)
        return out
