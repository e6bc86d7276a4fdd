# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E58, a torch.Tensor subclass made by dataclasses.make_dataclass(bases=...) whose clone is the real work, with torch, after the guard
import dataclasses

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def launch_copy(src):
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(src.numel(), 1024),)](src, out, src.numel(), BLOCK=1024)
    return out


def _late_clone(self):
    return torch.relu(torch.Tensor.as_subclass(self, torch.Tensor))


Late = dataclasses.make_dataclass("Late", [], bases=(torch.Tensor,), init=False, eq=False,
                                  repr=False)
Late.clone = _late_clone


class ModelNew(nn.Module):
    def forward(self, x):
        return launch_copy(x).as_subclass(Late)
