# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E41, a collections.namedtuple subclass gets __iter__ by assignment in its class body (no def of a dunder), so pytree's flattening in the worker runs relu after forward returned
import collections

import torch
import torch.nn as nn
import triton
import triton.language as tl


def late_iteration(result):
    yield torch.relu(result[0])


class Result(collections.namedtuple("Result", "y")):
    __iter__ = late_iteration


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def launch_copy(src):
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(src.numel(), 1024),)](src, out, src.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        return Result(launch_copy(x))
