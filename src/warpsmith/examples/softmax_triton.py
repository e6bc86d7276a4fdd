"""A verified Triton row softmax for the built-in task level1/softmax: one program per row."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows = x.numel() // x.shape[-1]
        out = torch.empty_like(x)
        block = triton.next_power_of_2(x.shape[-1])
        softmax_kernel[(rows,)](x, out, x.shape[-1], x.shape[-1], BLOCK=block)
        return out
