# task: level1/softmax
# expect: incorrect
# exploit: E12, compute in fp16 to be faster; fp32 task demands fp32 accuracy
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float16)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x.to(tl.float32)).to(tl.float16)
    s = tl.sum(e.to(tl.float32), axis=0)
    tl.store(out_ptr + row * n_cols + cols, (e.to(tl.float32) / s).to(tl.float16).to(tl.float32),
             mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
