# task: level1/relu
# expect: needs_gpu
# Honest on a GPU: the wrapper raises for a tensor off the GPU, the line after the test (a
# public LLM kernel's idiom). On the CPU interpreter that is the machine's limit: needs_gpu.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


def triton_relu(x):
    if not x.is_cuda:
        raise RuntimeError("Input must be a CUDA tensor.")
    y = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        return triton_relu(x.contiguous())
