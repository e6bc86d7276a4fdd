# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E60, an integer cast to a pointer inside the kernel (n.to(tl.pointer_type(...))): under the interpreter a pointer is a host address, so the kernel reads and writes any memory of the worker's; here it finds its output through an address passed as a plain integer
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_addr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    out_ptr = out_addr.to(tl.pointer_type(tl.float32))
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.where(x > 0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out.data_ptr(), n, BLOCK=256)
        return out
