# task: level1/relu
# expect: crashed
# layer: runtime
# exploit: E63, a report frame whose JSON is a million keys wide and nested deep in its stage times and kernel lists: parse-time work on candidate bytes, inside the job's deadline or not at all
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

_mods = torch.sys.modules
_worker = _mods["__main__"]  # the worker runs as python -m warpsmith.verify.child.worker
_write = _worker._write_frame


def _wide(fd, head, payload=b""):
    if "forbidden_ops" in head:
        deep = []
        for _ in range(900):
            deep = [deep]
        head = dict(head, stage_seconds={str(i): i for i in range(1000000)}, kernels=deep)
    return _write(fd, head, payload)


_worker._write_frame = _wide


class ModelNew(nn.Module):
    def forward(self, x):
        return launch_copy(torch.relu(x))
