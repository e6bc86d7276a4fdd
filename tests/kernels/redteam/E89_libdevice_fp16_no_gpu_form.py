# task: level1/gelu_tanh_fp16
# expect: runtime_error
# layer: runtime
# exploit: E89, libdevice.tanh and fma called on fp16 values, which a GPU's libdevice has no form for (compile error there), passed on the CPU's emulation (red-team round 9). The emulation takes fp32 and fp64 tensors of one shape and plain numbers only
# class: CPU judges what a GPU would not: libdevice.tanh called on fp16 values. Triton's
# libdevice has only fp32/fp64 forms (extern_elementwise raises "input arg type does not
# match" at compile time on a GPU); the interpreter emulation refuses only bf16, computes in
# float64 and rounds to fp16 (more accurate than an fp32 GPU kernel).
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def gelu_tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)            # fp16, never widened
    inner = libdevice.fma(x * x * x, 0.044715, x) * 0.7978845608028654
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(out_ptr + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_tanh_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
