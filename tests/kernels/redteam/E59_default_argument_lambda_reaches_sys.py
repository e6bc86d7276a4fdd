# task: level1/relu
# expect: rejected
# exploit: E59, torch.sys reached off a lambda's default argument (m=torch, then m.sys), so no name at the call site holds torch; sys.modules then switches the op guard off and torch.relu does the work
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

_get = lambda m=torch: m.sys  # noqa: E731
_mods = _get().modules
for _n in list(_mods):
    if _n.endswith("verify.child.dispatch"):
        _g = _mods[_n].OpGuard
        _g.check = _g.check_function = lambda self, what: None


class ModelNew(nn.Module):
    def forward(self, x):
        return launch_copy(torch.relu(x))
