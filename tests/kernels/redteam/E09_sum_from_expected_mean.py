# task: level1/sum_last_dim
# expect: incorrect
# exploit: E09, near-trivial output: ignore the data and return the expected row sum of the task's input distribution (mean 0.2 per element, so 0.2 x COLS)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(out_ptr, n, value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.zeros((BLOCK,), tl.float32) + value, mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        fill_kernel[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), 0.2 * x.shape[1],
                                                       BLOCK=1024)
        return out
