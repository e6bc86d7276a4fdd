# task: level1/relu
# expect: needs_gpu
# Honest on a GPU, as a public LLM-kernel repository's Triton files are often written: the
# wrapper asserts its input is on the GPU. On the CPU interpreter that assert is the machine's
# limit (needs_gpu), not a runtime_error stored against the kernel.
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
        assert x.is_cuda, "input must be a CUDA tensor"
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
