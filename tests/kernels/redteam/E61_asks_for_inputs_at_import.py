# task: level1/relu
# expect: crashed
# layer: runtime
# exploit: E61, at import the candidate asks the trusted side for the first checked call's inputs itself (an inputs frame on the result fd), reads them off stdin before any guard runs, computes the answer with torch there, and puts the bytes back in the worker's buffer so the worker's own request is answered with them; forward returns the answer it made unguarded
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
_proto = _mods["warpsmith.verify.protocol"]
_fd = int(torch.sys.argv[2])
_worker._write_frame(_fd, {"frame": _proto.INPUTS})
_line = _worker.stdin_line()
_answers = []
if _line is not None and _line != _proto.NO_MORE.decode().strip():
    _record = _mods["warpsmith.verify.wire"].parse_input_header(_line)
    _given = _worker.receive_tensors(_fd, _record, torch.device("cpu"))
    _answers = [torch.relu(t) for t in _given if isinstance(t, torch.Tensor)]
    _worker._pending[:0] = _line.encode() + b"\n" + b"".join(
        t.contiguous().view(torch.uint8).flatten().numpy().tobytes()
        for t in _given if isinstance(t, torch.Tensor))


class ModelNew(nn.Module):
    def forward(self, x):
        if _answers and _answers[0].shape == x.shape:
            return launch_copy(_answers.pop(0))
        return launch_copy(torch.relu(x))
