# task: level1/relu
# expect: rejected
# exploit: E69, torch.distributed._local_tensor re-exports the dispatch mode stack: the guard's own mode, whose record of forbidden ops was cleared at the end of forward (red-team round 3). Refused by private-reach and expression-reach; the modes now hold only closures, and the guard compares its code at exit
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def same(m):
    return m


modes_now = same(torch).distributed._local_tensor._get_current_dispatch_mode_stack


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
        for mode in modes_now():
            mode.guard.forbidden.clear()
        return out
