# task: level1/softmax_bf16
# expect: incorrect
# exploit: E09, uniform 1/N output on a bf16 task, betting on bf16's loose tolerances for wide rows
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(out_ptr, n, value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, (tl.zeros((BLOCK,), tl.float32) + value).to(tl.bfloat16),
             mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        fill_kernel[(triton.cdiv(x.numel(), 1024),)](out, x.numel(), 1.0 / x.shape[-1],
                                                     BLOCK=1024)
        return out
