"""The candidate's process's half of ipc.py: each GPU output's allocation exported as a CUDA
IPC handle, through the driver API. What it sends is untrusted data to the trusted side, which
maps, bounds-checks and copies it (verify/ipc.py)."""

from __future__ import annotations

import ctypes

import torch

from ..cudadriver import IpcHandle, address_range, buffer_id, check, driver


def export(tensor: torch.Tensor, known: dict | None = None, keep: list | None = None) -> dict:
    """A handle to the allocation holding this tensor, or its contiguous copy, which `keep`
    holds until the trusted side has read it: freed at once, the caching allocator gave its
    memory to the next output's copy, and a call's q and k (permuted views, as a QKV split
    returns them) were both read from one address, the last one written there (measured on
    the H100: `incorrect` for an honest kernel while timed). `known` keeps the handles
    made before, by the allocation's buffer id (never reused within a process, so a segment
    freed and another mapped at its address is not mistaken for it): a timed block's outputs
    come from the same few segments of the caching allocator block after block, and
    cuIpcGetMemHandle for each output was time on the trusted side's clock (a block's
    post-run work measured 130-345 us on the H100, most of it, by its count of outputs,
    the handles)."""
    if not tensor.is_contiguous():
        if keep is None:
            raise ValueError("a copy of a non-contiguous output needs a holder until it is read")
        tensor = tensor.contiguous()  # on the stream: the caller synchronizes once, after
        keep.append(tensor)  # every output's copy, before the frame goes
    ptr = tensor.data_ptr()
    meta = {"shape": list(tensor.shape), "dtype": str(tensor.dtype).removeprefix("torch.")}
    if tensor.numel() == 0:
        return {"handle": "", "offset": 0, **meta}
    base, _ = address_range(ptr)
    key = (base, buffer_id(base))
    known = {} if known is None else known
    if key not in known:
        handle = IpcHandle()
        check(driver().cuIpcGetMemHandle(ctypes.byref(handle), ctypes.c_uint64(base)),
              "cuIpcGetMemHandle")
        known[key] = ctypes.string_at(ctypes.byref(handle), 64).hex()
    return {"handle": known[key], "offset": ptr - base, **meta}
