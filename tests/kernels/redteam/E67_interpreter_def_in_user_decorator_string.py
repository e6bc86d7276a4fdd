# task: level1/relu
# expect: rejected
# exploit: E67, a 'def ' line inside the string argument of a user decorator above @triton.jit; the hidden code after it ran as top-level statements of the interpreter's rewrite. The def line and the function's end now come from Python's parse of the source; torch.relu then is a forbidden op
import torch
import torch.nn as nn
import triton
import triton.language as tl


def documented(text):
    def wrap(fn):
        return fn
    return wrap


@documented("""
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass
import sys
guard = sys.modules["warpsmith.verify.child.dispatch"].OpGuard
guard.check = lambda *a, **k: None
guard.check_function = lambda *a, **k: None
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)
note = ''' """)
@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)
    # '''


def launch_copy(src):
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(src.numel(), 1024),)](src, out, src.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        y = launch_copy(x)
        return launch_copy(torch.relu(y))
