"""Tensors across the process boundary as plain bytes, both ways, never pickles.

Inputs go from the trusted side to the candidate's process when a call starts: a JSON line
that describes each argument (a tensor's dtype and shape, or a plain JSON value), then, on
the CPU, each tensor's bytes in order. Outputs come back as a JSON list of descriptors in
the frame's header and the tensors' bytes as its payload. The trusted side reads the
candidate's outputs only as the dtypes and shapes of its own reference (`read_outputs`), so
what a descriptor claims can make a comparison fail but never make the trusted side parse
more than the bytes that came: the work is linear in the frame's size.

Both sides import this module, so it imports nothing of warpsmith's.
"""

from __future__ import annotations

import json
import math
import warnings

import torch

MAX_DIMS = 16
MAX_ARGS = 256

_dumps = json.dumps  # bound before the candidate's import (protocol.py does likewise)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


# torch's dtypes by name, found once: a name from the candidate's process is looked up here,
# never with getattr on torch, where `onnx` or `_dynamo` would import a torch module lazily
# in the trusted process (seconds, on a name the candidate chose: red-team round 15)
DTYPES = {k: v for k, v in vars(torch).items() if isinstance(v, torch.dtype)}


def dtype_of(name) -> torch.dtype | None:
    return DTYPES.get(name) if isinstance(name, str) else None


def describe(t: torch.Tensor) -> dict:
    return {"dtype": dtype_name(t.dtype), "shape": list(t.shape)}


def as_bytes(t: torch.Tensor) -> memoryview:
    """A tensor's elements in row-major order as bytes (a copy only where it is not
    contiguous on the CPU already)."""
    flat = t.detach().to("cpu").contiguous().reshape(-1)
    if flat.numel() == 0:
        return memoryview(b"")
    return memoryview(flat.view(torch.uint8).numpy())


def nbytes(desc: dict) -> int:
    dtype = dtype_of(desc.get("dtype"))
    shape = desc.get("shape")
    if dtype is None or not valid_shape(shape):
        raise ValueError("a tensor descriptor without a valid dtype and shape")
    return math.prod(shape) * dtype.itemsize


def meta(desc: dict) -> torch.Tensor:
    """A meta tensor of what a descriptor claims; ValueError where torch cannot make one (a
    shape whose strides overflow: [0] + [2**39] * 15 holds no byte, and its meta tensor
    raised RuntimeError out of verify(), E64)."""
    try:
        return torch.empty(desc["shape"], dtype=dtype_of(desc["dtype"]), device="meta")
    except (RuntimeError, OverflowError) as e:
        raise ValueError(f"an output's shape cannot be made ({str(e)[:80]})") from e


def valid_shape(shape) -> bool:
    return isinstance(shape, list) and len(shape) <= MAX_DIMS and all(
        type(n) is int and 0 <= n < 2**40 for n in shape)


def from_bytes(data, desc: dict, offset: int, device: str = "cpu") -> torch.Tensor:
    """The tensor `desc` describes, read from data[offset:offset + nbytes(desc)] (a copy:
    the buffer is the caller's to reuse)."""
    size = nbytes(desc)
    dtype = dtype_of(desc["dtype"])
    if size == 0:
        return torch.empty(desc["shape"], dtype=dtype, device=device)
    with warnings.catch_warnings():  # bytes are read-only: the clone is what is kept
        warnings.simplefilter("ignore", UserWarning)
        raw = torch.frombuffer(data, dtype=torch.uint8, count=size, offset=offset)
    return raw.clone().view(dtype).reshape(desc["shape"]).to(device)


# -- inputs: trusted side -> candidate's process ------------------------------------------

def input_header(call: int, shape: str, args: list, extra: dict | None = None) -> bytes:
    """The line that starts a call: which call, of which shape, and each argument's
    descriptor ({"t": {dtype, shape}} for a tensor, {"v": value} for anything JSON holds)."""
    described = [{"t": describe(a)} if isinstance(a, torch.Tensor) else {"v": a} for a in args]
    record = {"call": call, "shape": shape, "args": described} | (extra or {})
    return (_dumps(record) + "\n").encode()


def input_payload(args: list) -> list[memoryview]:
    """The bytes that follow the header on the CPU, one chunk per tensor argument."""
    return [as_bytes(a) for a in args if isinstance(a, torch.Tensor)]


def parse_input_header(line: str) -> dict:
    record = json.loads(line)
    if not isinstance(record, dict) or not isinstance(record.get("args"), list) or \
            len(record["args"]) > MAX_ARGS:
        raise ValueError("the trusted side's call record is malformed")
    return record


def tensor_descs(record: dict) -> list[dict]:
    return [a["t"] for a in record["args"] if "t" in a]


def build_args(record: dict, tensors: list[torch.Tensor]) -> list:
    """The call's arguments in order: the tensors given (made from the descriptors) and the
    plain values. A JSON list stays a list (a tuple argument arrives as a list)."""
    it = iter(tensors)
    return [next(it) if "t" in a else a["v"] for a in record["args"]]


# -- outputs: candidate's process -> trusted side -----------------------------------------

def output_message(outs: list[torch.Tensor]) -> tuple[list[dict], list[memoryview]]:
    """(descriptors, byte chunks) of one call's outputs on the CPU."""
    return [describe(t) for t in outs], [as_bytes(t) for t in outs]


def read_outputs(descs, payload: bytes, refs: list[torch.Tensor]) -> list[torch.Tensor]:
    """The candidate's outputs of one call, as ours: each descriptor that matches its
    reference's dtype and shape is read from the payload as exactly that; one that does not
    is a meta tensor of what it claims (the comparison names the mismatch). ValueError when
    the descriptors and the payload do not agree on the bytes sent. Their count is not
    bounded here (the frame's header is, at 1 MiB): a call that returns 3000 outputs where the
    reference returns one is `incorrect` by the count, as on a GPU, not malformed (E49)."""
    if not isinstance(descs, list) or not all(isinstance(d, dict) for d in descs):
        raise ValueError("the outputs' descriptors are not a list of objects")
    sizes = [nbytes(d) for d in descs]
    if sum(sizes) != len(payload):
        raise ValueError(f"the outputs' descriptors claim {sum(sizes)} bytes, "
                         f"{len(payload)} came")
    outs, offset = [], 0
    for i, (desc, size) in enumerate(zip(descs, sizes, strict=True)):
        ref = refs[i] if i < len(refs) else None
        claimed = meta(desc)
        if ref is None or claimed.shape != ref.shape or claimed.dtype != ref.dtype:
            outs.append(claimed)
        else:
            outs.append(from_bytes(payload, desc, offset, device=str(ref.device)))
        offset += size
    return outs
