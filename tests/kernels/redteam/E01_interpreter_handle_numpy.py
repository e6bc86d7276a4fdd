# task: level1/relu
# expect: rejected
# exploit: E01, the CPU interpreter's weakness: inside an interpreted kernel a loaded block is a NumPy array behind .handle.data, which NumPy computes on in place (relu as h *= h > 0); it passes on the CPU and is no Triton kernel on a GPU
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    h = x.handle.data
    h *= (h > 0)
    tl.store(out_ptr + offsets, x, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
