# task: level1/gelu_tanh_fp16
# expect: passed
# An LLM's habit: tanh from libdevice (tl.extra.cuda.libdevice), computed in fp32. Triton's
# interpreter runs no libdevice function; the worker emulates them (lang/triton_compat).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + tl.extra.cuda.libdevice.tanh(inner))
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_tanh_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
