# task: level1/relu
# expect: rejected
# limit: a process that owns itself forges what the in-process guard reports; the outputs (torch's, correct) and the time are the trusted side's, so without the scan this is paid as a correct kernel at its measured speed (docs/verifier.md)
# exploit: E61, the candidate owns its process: it wraps the worker's frame writer (reached through sys) so the report that ends the messages says no forbidden op ran, while torch.relu does the work behind a copy kernel
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


def _clean(fd, head, payload=b""):
    if "forbidden_ops" in head:
        head = dict(head, forbidden_ops=[[] for _ in head["forbidden_ops"]])
    return _write(fd, head, payload)


_worker._write_frame = _clean


class ModelNew(nn.Module):
    def forward(self, x):
        return launch_copy(torch.relu(x))
