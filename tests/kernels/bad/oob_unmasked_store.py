# task: level1/relu
# expect: runtime_error
# A ReLU whose last block's store has no mask (issue 31 item 5): under the interpreter it
# touched host memory past the tensor's end, and the verdict depended on what lay there
# (passed every time for a load; crashed, runtime_error, compile_error or timeout for a
# store). Every access is now checked against the launch's tensors: runtime_error, named.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.where(x > 0, x, 0.0))  # no mask: writes past the end


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
