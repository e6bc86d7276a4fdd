"""The few CUDA driver calls the verifier makes itself, through libcuda (ctypes): the trusted
side must not run torch's IPC rebuild code on data from the candidate (ipc.py, child/ipc.py),
and torch has no API for the persisting-L2 state that a candidate can leave behind
(child/timing.py, E31). Both sides import it; it imports nothing of warpsmith's."""

from __future__ import annotations

import ctypes
import functools

CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
CU_POINTER_ATTRIBUTE_BUFFER_ID = 7


@functools.cache
def driver() -> ctypes.CDLL:
    lib = ctypes.CDLL("libcuda.so.1")
    for name in ("cuMemGetAddressRange_v2", "cuIpcGetMemHandle", "cuIpcOpenMemHandle_v2",
                 "cuIpcCloseMemHandle", "cuCtxResetPersistingL2Cache", "cuCtxSetLimit",
                 "cuCtxGetLimit", "cuPointerGetAttribute"):
        getattr(lib, name).restype = ctypes.c_int
    return lib


def check(result: int, what: str) -> None:
    if result != 0:
        raise RuntimeError(f"{what} failed with CUDA driver error {result}")


class IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]


def address_range(ptr: int) -> tuple[int, int]:
    """(base, size) of the allocation that holds device address `ptr`."""
    base, size = ctypes.c_uint64(), ctypes.c_size_t()
    check(driver().cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size),
                                           ctypes.c_uint64(ptr)), "cuMemGetAddressRange")
    return base.value, size.value


def buffer_id(ptr: int) -> int:
    """The id the driver gave the allocation holding `ptr`: unique within the process for
    its lifetime, never reused (CU_POINTER_ATTRIBUTE_BUFFER_ID)."""
    value = ctypes.c_ulonglong(0)
    check(driver().cuPointerGetAttribute(ctypes.byref(value), CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                         ctypes.c_uint64(ptr)), "cuPointerGetAttribute")
    return value.value


def reset_persisting_l2() -> None:
    """No persisting-L2 lines may survive into a timed call (an access-policy window set by a
    candidate would otherwise make its data look like it came from HBM)."""
    check(driver().cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, ctypes.c_size_t(0)),
          "cuCtxSetLimit(persisting L2 = 0)")
    check(driver().cuCtxResetPersistingL2Cache(), "cuCtxResetPersistingL2Cache")


def persisting_l2_limit() -> int:
    """The context's persisting-L2 set-aside in bytes. Reading it is a host-side query: timing
    calls it before every timed call, where setting the limit and resetting the lines each
    time made speedups vary by ~8 % between processes (benchmarks/noise_probe.py)."""
    value = ctypes.c_size_t(0)
    check(driver().cuCtxGetLimit(ctypes.byref(value), CU_LIMIT_PERSISTING_L2_CACHE_SIZE),
          "cuCtxGetLimit(persisting L2)")
    return value.value
