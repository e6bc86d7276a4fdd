# task: level1/relu
# expect: rejected
# timing: on
# exploit: E20 with E16 (while timed only: the NaN fill is off, so torch.are_deterministic_algorithms_enabled() tells): the output written into the input and the input handed back, no allocation; timed calls were not checked for aliasing or writes into inputs, and it passed. Now every timed call is checked for an output in an input's memory, and the watched call for writes into its inputs
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


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        checked = torch.are_deterministic_algorithms_enabled()  # off only while timed
        out = torch.empty_like(x) if checked else x  # timed: no allocation, the input is
        n = x.numel()                                 # overwritten and handed back
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
