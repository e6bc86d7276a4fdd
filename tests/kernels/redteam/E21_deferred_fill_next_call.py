# task: level1/relu
# expect: incorrect
# exploit: E21, deferred work: each call returns an unwritten buffer and finishes the previous call's output instead (the quick profile makes 4 calls per shape, so the 4th also finishes itself); on the CPU the worker keeps references to returned tensors instead of snapshotting them at return
import torch
import torch.nn as nn
import triton
import triton.language as tl

CALLS_PER_SHAPE = 4  # quick profile: 2 seeds + scaled + shifted


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


@triton.jit
def noop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offsets, mask=offsets < n)


def _run(x, out):
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.pending = None
        self.calls = 0

    def forward(self, x):
        noop_kernel[(1,)](x, 0, BLOCK=16)
        if self.pending is not None:
            _run(*self.pending)  # finish the previous call's output, after it was returned
        out = torch.empty_like(x)
        self.calls += 1
        if self.calls % CALLS_PER_SHAPE == 0:
            _run(x, out)
            self.pending = None
        else:
            self.pending = (x.clone(), out)
        return out
