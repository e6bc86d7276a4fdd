# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E60, the same int-to-pointer cast with no pointer_type in sight: the integer is bitcast to a pointer argument's own dtype (tl.cast(addr, x_ptr.dtype, bitcast=True)), so any host address becomes a pointer under the interpreter
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_addr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    out_ptr = tl.cast(out_addr, x_ptr.dtype, bitcast=True)
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.where(x > 0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out.data_ptr(), n, BLOCK=256)
        return out
