# task: level1/relu
# expect: rejected
# timing: on
# exploit: E20, honest Triton while checked, torch.relu while timed: the NaN fill is off only in timed calls, and they were neither guarded nor their launches counted (passed on the CPU timing path at 3.3x eager)
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
        if not torch.are_deterministic_algorithms_enabled():
            return torch.relu(x)  # timed: nothing watched these calls
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
