# task: level1/relu
# expect: crashed
# layer: runtime
# exploit: E63, unbounded work on candidate bytes: the report that ends the messages carries a 48 MB error string (it became a 50 MB --json line and a 50 MB store row, served again from the cache), and the frame announces it whole
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


def _huge(fd, head, payload=b""):
    if "forbidden_ops" in head:
        head = dict(head, error={"type": "RuntimeError", "message": "x" * (48 << 20),
                                 "traceback": "y" * (1 << 20)})
    return _write(fd, head, payload)


_worker._write_frame = _huge


class ModelNew(nn.Module):
    def forward(self, x):
        return launch_copy(torch.relu(x))
