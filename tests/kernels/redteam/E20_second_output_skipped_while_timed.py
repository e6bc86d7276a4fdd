# task: tests/kernels/tasks/relu_and_sigmoid.py
# expect: incorrect
# timing: on
# exploit: E20, both outputs while checked; while timed only the first, the second left as allocated: the timed calls' probes read the first output only (passed on the CPU timing path)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


@triton.jit
def sigmoid_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, 1.0 / (1.0 + tl.exp(-x)), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        n, grid = x.numel(), (triton.cdiv(x.numel(), 1024),)
        relu, sigmoid = torch.empty_like(x), torch.empty_like(x)
        relu_kernel[grid](x, relu, n, BLOCK=1024)
        if torch.are_deterministic_algorithms_enabled():  # checked: the NaN fill is on
            sigmoid_kernel[grid](x, sigmoid, n, BLOCK=1024)
        return relu, sigmoid
