# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E58, a torch.Tensor subclass made by the metaclass reached as type(type) (no class statement, no three-argument type() by name) whose detach does the work with torch after forward returned
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def launch_copy(src):
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(src.numel(), 1024),)](src, out, src.numel(), BLOCK=1024)
    return out


def _late_detach(self):
    return torch.relu(torch.Tensor.as_subclass(self, torch.Tensor).detach())


_meta = type(type)
Lazy = _meta("Lazy", (torch.Tensor,), {"detach": _late_detach})


class ModelNew(nn.Module):
    def forward(self, x):
        return launch_copy(x).as_subclass(Lazy)
