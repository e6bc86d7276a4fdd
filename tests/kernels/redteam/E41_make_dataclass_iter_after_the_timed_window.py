# task: level1/relu
# expect: rejected
# timing: on
# exploit: E41, the work done when the worker reads the output, after the timed window: a namedtuple built by dataclasses.make_dataclass with "__iter__" in its namespace (no def, no class body) launches the real kernel when flattened; the timed call ran one store and passed faster than the honest kernel. Now a dunder name in a string is rejected, and timed calls flatten their outputs inside the window
import dataclasses

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


@triton.jit
def touch_kernel(out_ptr):
    tl.store(out_ptr, 0.0)


def late(self):
    x, out = self[0], self[1]
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 64),)](x, out, n, BLOCK=64)
    return iter((out,))


Late = dataclasses.make_dataclass("Late", [], bases=(tuple,), init=False, eq=False,
                                  namespace={"_fields": ("y",), "_make": late, "_asdict": late,
                                             "__iter__": late})


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor):
        x = x.contiguous()
        out = torch.empty_like(x)
        touch_kernel[(1,)](out)  # the timed call: one store
        return Late((x, out))  # the real work runs when the worker reads the output
