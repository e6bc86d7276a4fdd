# task: level1/relu
# expect: needs_gpu
# Honest on a GPU: the output is allocated on "cuda" by name, as many LLM kernels do. On the
# CPU build of torch that allocation raises "Torch not compiled with CUDA enabled": the
# machine's limit (needs_gpu), not the kernel's runtime_error.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        n = x.numel()
        y = torch.empty(x.shape, dtype=x.dtype, device="cuda")
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
