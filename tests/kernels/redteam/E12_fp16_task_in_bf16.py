# task: level1/gelu_tanh_fp16
# expect: incorrect
# exploit: E12, precision downgrade on a 16-bit task: compute the fp16 GELU through bf16 (3 fewer mantissa bits), betting that fp16's loose rtol (1e-2) hides it
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_bf16_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.bfloat16).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = (2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0).to(tl.bfloat16).to(tl.float32)
    y = (0.5 * x * (1.0 + t)).to(tl.bfloat16)
    tl.store(out_ptr + offsets, y.to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        gelu_bf16_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
