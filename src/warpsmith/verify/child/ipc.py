"""The candidate's process's half of ipc.py: each GPU output's allocation exported as a CUDA
IPC handle, through the driver API. What it sends is untrusted data to the trusted side, which
maps, bounds-checks and copies it (verify/ipc.py)."""

from __future__ import annotations

import ctypes

import torch

from ..cudadriver import IpcHandle, address_range, check, driver


def export(tensor: torch.Tensor, known: dict[int, tuple[int, str]] | None = None) -> dict:
    """A handle to the allocation holding this (contiguous) tensor. `known` (base -> (size,
    handle)) holds the allocations exported before while they are all still held: a timed
    block's outputs share a few of the caching allocator's segments, and two driver calls
    per output were time on the trusted side's clock (~17 us a call on the H200)."""
    tensor = tensor.contiguous()
    ptr = tensor.data_ptr()
    meta = {"shape": list(tensor.shape), "dtype": str(tensor.dtype).removeprefix("torch.")}
    if tensor.numel() == 0:
        return {"handle": "", "offset": 0, **meta}
    known = {} if known is None else known
    hit = next((base for base, (size, _) in known.items() if base <= ptr < base + size), None)
    if hit is None:
        hit, size = address_range(ptr)
        handle = IpcHandle()
        check(driver().cuIpcGetMemHandle(ctypes.byref(handle), ctypes.c_uint64(hit)),
              "cuIpcGetMemHandle")
        known[hit] = (size, ctypes.string_at(ctypes.byref(handle), 64).hex())
    return {"handle": known[hit][1], "offset": ptr - hit, **meta}
