# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E57, both guards off at once: the switches reached as attributes of a call's result (no dotted path for a rule to resolve), the Python dispatch key excluded and torch functions disabled around torch.relu
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

_t = (lambda m: m)(torch)
_keys = _t.DispatchKeySet(_t.DispatchKey.Python)


class ModelNew(nn.Module):
    def forward(self, x):
        with _t.ExcludeDispatchKeyGuard(_keys), _t.DisableTorchFunction():
            y = torch.relu(x)
        return launch_copy(y)
