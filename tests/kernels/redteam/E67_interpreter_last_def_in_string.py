# task: level1/softmax
# expect: rejected
# exploit: E67, the interpreter compiled a kernel from the last line starting with 'def ', which sits in a string literal in the kernel's body: code the scan sees as a string (import sys, the guard off) ran at the first launch. Now the function's own def is compiled; torch.softmax then is a forbidden op
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    note = '''
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    import sys
    guard = sys.modules["warpsmith.verify.child.dispatch"].OpGuard
    guard.check = lambda *a, **k: None
    guard.check_function = lambda *a, **k: None
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)
    note = """
    '''
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)
    # """
    note = note


def launch_copy(src):
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(src.numel(), 1024),)](src, out, src.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        y = launch_copy(x)
        return launch_copy(torch.softmax(y, dim=-1))
