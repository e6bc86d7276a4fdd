# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E58, an import with no import statement and no compile: a generator's code object renamed with code.replace (imp0rt becomes the builtin import, its name built at run time) and called through type(fn)(code, {}); sys.modules then switches the op guard off and torch.relu does the work
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


def _probe():
    yield imp0rt("sys")  # noqa: F821 (renamed below)


_code = _probe().gi_code
_name = "_" * 2 + "import" + "_" * 2
_sys = next(type(_probe)(_code.replace(co_names=tuple(
    _name if n == "imp0rt" else n for n in _code.co_names)), {})())
for _n in list(_sys.modules):
    if _n.endswith("verify.child.dispatch"):
        _g = _sys.modules[_n].OpGuard
        _g.check = _g.check_function = lambda self, what: None


class ModelNew(nn.Module):
    def forward(self, x):
        return launch_copy(torch.relu(x))
