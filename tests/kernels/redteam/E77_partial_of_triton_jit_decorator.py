# task: level1/relu
# expect: rejected
# exploit: E77, @functools.partial(triton.jit) decorated a kernel no rule read (red-team round 7). A decorator naming triton.jit anywhere makes a kernel
# idea: _triton_kernels knows a kernel by a decorator whose dotted name ends in "jit" or a
# call triton.jit(Name); `@functools.partial(triton.jit)` is neither (its dotted name is
# functools.partial), so this kernel is read by no kernel rule: its body calls host Python
# (str of the loaded block, float, max) directly.
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def decoy(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=offsets < n), mask=offsets < n)


def host_block(src, dst, count, block):
    m = int(str(count).strip("[]"))
    lanes = tl.arange(0, block)
    vals = [float(t) for t in str(tl.load(src + lanes, mask=lanes < count, other=0.0)).strip("[]").split()]
    for j in range(m):
        tl.store(dst + j, max(vals[j], 0.0))


@functools.partial(triton.jit)
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    host_block(x_ptr + tl.program_id(0) * BLOCK, out_ptr + tl.program_id(0) * BLOCK,
               tl.minimum(n - tl.program_id(0) * BLOCK, BLOCK), BLOCK)


KERNELS = (decoy,)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
