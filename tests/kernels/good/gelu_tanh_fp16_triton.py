# task: level1/gelu_tanh_fp16
# expect: passed
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_kernel(x_ptr, out_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    u = K * (x + 0.044715 * x * x * x)
    # 0.5 * (1 + tanh(u)) == sigmoid(2u), so gelu_tanh(x) = x / (1 + exp(-2u))
    y = x / (1.0 + tl.exp(-2.0 * u))
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        block = 4096
        gelu_tanh_kernel[(triton.cdiv(n, block),)](x, out, n, K=math.sqrt(2.0 / math.pi),
                                                    BLOCK=block, num_warps=8)
        return out
