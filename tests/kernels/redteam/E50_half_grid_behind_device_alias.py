# task: level1/relu
# expect: needs_gpu
# exploit: E50, a GPU path the CPU never runs: a correct kernel for CPU tensors, half the grid where the device (through an alias, `where.type`) is "cuda"; the CPU interpreter passed it. Now needs_gpu: a candidate that asks which device it is on is judged on a GPU only
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
        out = torch.empty_like(x)
        n = x.numel()
        where = x.device
        if where.type == "cuda":
            n = n // 2  # on a GPU, half the work: never seen by the CPU interpreter
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
