# task: level1/sigmoid
# expect: runtime_error
# layer: runtime
# exploit: E101 (red-team round 12), a @triton.jit helper declares its parameter `v: tl.constexpr`, so the scan treats it as compile-time, but the kernel hands it a loaded (run-time) scalar; under the interpreter `math.ldexp(v, -25)` turns the block into a host float and `math.tanh` computes the sigmoid as host Python (a GPU's compiler refuses a run-time value for a constexpr parameter).
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl



@triton.jit
def host_sigmoid(v: tl.constexpr):
    # math.ldexp reads the block's value as a host float (through __index__ of x * 2**24)
    return 0.5 + 0.5 * math.tanh(math.ldexp(v, -25))


@triton.jit
def sigmoid_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    end = tl.minimum(start + BLOCK, n)
    for i in range(start, end):
        s = tl.load(x_ptr + i) * 16777216.0
        tl.store(out_ptr + i, host_sigmoid(s))


class ModelNew(nn.Module):
    def forward(self, x):
        xc = x.contiguous()
        out = torch.empty_like(xc)
        n = xc.numel()
        block = 1024
        sigmoid_kernel[(triton.cdiv(n, block),)](xc, out, n, BLOCK=block)
        return out
