# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E41 (code that runs outside forward: dunder methods or container methods that Python, torch or the worker call on a returned object after the guard closed), here forward returns a NamedTuple whose __iter__ computes relu when the worker flattens the outputs
import typing

import torch
import torch.nn as nn
import triton
import triton.language as tl


class Result(typing.NamedTuple):
    y: torch.Tensor

    def __iter__(self):
        return iter([torch.relu(self.y)])


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
