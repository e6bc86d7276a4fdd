# task: level1/relu
# expect: runtime_error
# gpu: memcheck
# exploit: E17, a ReLU whose loads take no mask (its stores do): the last block reads past the input's end. Its outputs are right wherever the read stays in mapped memory, so only a memory-safety check catches it (the CPU's bounds check, the GPU's memcheck under --profile thorough)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    y = tl.maximum(tl.load(x_ptr + offsets), 0.0)
    tl.store(out_ptr + offsets, y, mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1000),)](x, out, x.numel(), BLOCK=1024)
        return out
