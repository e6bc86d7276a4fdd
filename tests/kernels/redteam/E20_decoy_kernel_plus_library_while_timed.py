# task: level1/relu
# expect: rejected
# timing: on
# exploit: E20, honest Triton while checked; while timed a one-element decoy kernel (so every timed call launches one of its own) beside torch.relu, which only the watched call hidden in each timed block sees
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        n = x.numel()
        if not torch.are_deterministic_algorithms_enabled():
            out = torch.relu(x)
            relu_kernel[(1,)](x, out, 1, BLOCK=16)  # the decoy: one element, same value
            return out
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
