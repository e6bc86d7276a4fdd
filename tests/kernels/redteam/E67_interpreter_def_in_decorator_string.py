# task: level1/softmax
# expect: rejected
# exploit: E67, a 'def ' line inside a multi-line string argument of @triton.jit(...): a first-'def '-line rule took it for the kernel's def and the interpreter compiled the hidden program (import sys, the guard off). The def line now comes from Python's parse of the source; torch.softmax then is a forbidden op
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit(version='''
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    import sys
    guard = sys.modules["warpsmith.verify.child.dispatch"].OpGuard
    guard.check = lambda *a, **k: None
    guard.check_function = lambda *a, **k: None
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)
    return
    note = """ ''')
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)
    # """


def launch_copy(src):
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(src.numel(), 1024),)](src, out, src.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        y = launch_copy(x)
        return launch_copy(torch.softmax(y, dim=-1))
