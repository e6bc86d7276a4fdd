# task: level1/gelu_tanh_fp16
# expect: passed
# Honest (round 10): the libdevice import shim (try: ... except ImportError: ...) at module level, refused as try/except before.
# GELU(tanh) in fp16 with fp32 math; libdevice's location moved between Triton releases,
# so the import falls back (the usual compat shim).
import torch
import torch.nn as nn
import triton
import triton.language as tl

try:
    from triton.language.extra.cuda import libdevice
except ImportError:
    from triton.language.extra import libdevice


@triton.autotune(
    configs=[triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
             triton.Config({"BLOCK_SIZE": 1024}, num_warps=8)],
    key=["n_elements"],
)
@triton.jit
def gelu_tanh_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK_SIZE), BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(y_ptr + offs, y.to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        grid = lambda META: (triton.cdiv(n, META["BLOCK_SIZE"]),)
        gelu_tanh_kernel[grid](x, y, n)
        return y
