# task: level1/softmax
# expect: incorrect
# exploit: E13, hard-code the one shape the CPU checks (37 x 129): grid, row stride and block size ignore x.shape, so any other shape (the gpu shape included) is wrong
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_37x129_kernel(x_ptr, out_ptr):
    row = tl.program_id(0)
    cols = tl.arange(0, 256)
    mask = cols < 129
    x = tl.load(x_ptr + row * 129 + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * 129 + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        softmax_37x129_kernel[(37,)](x, out)
        return out
