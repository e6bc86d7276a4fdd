# task: level1/relu
# expect: runtime_error
# exploit: E48, "not my fault" by a faked out-of-memory: forward launches its kernel, then
#   raises torch.OutOfMemoryError itself. On a GPU the verdict was too_large (the
#   candidate's peak stayed within its share of the memory plan), which is never cached and
#   never rewarded or penalised: a failing kernel dodges its verdict. A too_large now needs the
#   worker's allocator to have seen the out-of-memory (child/worker.py).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def relu(x):
    out = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        relu(x)
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
