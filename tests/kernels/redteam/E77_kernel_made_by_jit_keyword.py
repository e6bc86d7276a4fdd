# task: level1/relu
# expect: rejected
# exploit: E77, relu_kernel = triton.jit(fn=relu_rows): a kernel handed by keyword, beside a decorated decoy, computed ReLU in host Python (red-team round 7). Kernels are found through triton.jit handed by any argument
# idea: static_base._triton_kernels finds kernels handed to triton.jit only as POSITIONAL
# Name arguments; `triton.jit(fn=relu_rows)` (keyword) makes a kernel no rule reads.
# The kernel's helper computes ReLU in host Python (str of the loaded block, float, max).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def decoy(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=offsets < n), mask=offsets < n)


def host_block(src, dst, count, block):
    m = int(str(count).strip("[]"))
    vals = [float(t) for t in str(tl.load(src + tl.arange(0, block), mask=tl.arange(0, block) < count, other=0.0)).strip("[]").split()]
    for j in range(m):
        tl.store(dst + j, max(vals[j], 0.0))


def relu_rows(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    host_block(x_ptr + tl.program_id(0) * BLOCK, out_ptr + tl.program_id(0) * BLOCK,
               tl.minimum(n - tl.program_id(0) * BLOCK, BLOCK), BLOCK)


relu_kernel = triton.jit(fn=relu_rows)
KERNELS = (decoy,)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
