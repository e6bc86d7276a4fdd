# task: level1/softmax
# expect: passed
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])  # views and reshapes are allowed torch calls
        out = torch.empty_like(x2)
        block = triton.next_power_of_2(x2.shape[1])
        softmax_kernel[(x2.shape[0],)](x2, out, x2.shape[1], x2.stride(0), BLOCK=block)
        return out.view_as(x)
