# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E42, unbound torch.Tensor.apply_ (taken at import under another name) runs a Python function on every element of the kernel's copy: relu on the host, no ATen compute op dispatched
import torch
import torch.nn as nn
import triton
import triton.language as tl

each = torch.Tensor.apply_


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def launch_copy(src):
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(src.numel(), 1024),)](src, out, src.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        out = launch_copy(x)
        each(out, lambda v: v if v > 0.0 else 0.0)
        return out
