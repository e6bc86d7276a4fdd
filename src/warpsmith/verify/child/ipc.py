"""The candidate's process's half of ipc.py: each GPU output's allocation exported as a CUDA
IPC handle, through the driver API. What it sends is untrusted data to the trusted side, which
maps, bounds-checks and copies it (verify/ipc.py)."""

from __future__ import annotations

import ctypes

import torch

from ..cudadriver import IpcHandle, address_range, check, driver


def export(tensor: torch.Tensor) -> dict:
    """A handle to the allocation holding this (contiguous) tensor."""
    tensor = tensor.contiguous()
    ptr = tensor.data_ptr()
    if tensor.numel() == 0:
        return {"handle": "", "offset": 0, "shape": list(tensor.shape),
                "dtype": str(tensor.dtype).removeprefix("torch.")}
    base, _ = address_range(ptr)
    handle = IpcHandle()
    check(driver().cuIpcGetMemHandle(ctypes.byref(handle), ctypes.c_uint64(base)),
          "cuIpcGetMemHandle")
    return {"handle": ctypes.string_at(ctypes.byref(handle), 64).hex(), "offset": ptr - base,
            "shape": list(tensor.shape), "dtype": str(tensor.dtype).removeprefix("torch.")}
