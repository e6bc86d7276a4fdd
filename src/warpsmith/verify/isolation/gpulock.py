"""One verification at a time on a GPU, whichever process asks: the memory plan is made
against the GPU's free memory and timing needs the GPU to itself, so two verifications that
overlap on one GPU (pytest -n, two benches, threads of a service) would starve each other's
memory and time each other's work. An flock on a file named after the GPU's UUID in the
system's temporary folder (which the candidate's sandbox hides) serialises them; the OS
releases it when its holder exits, however it exits."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import threading

_local = threading.Lock()  # flock is per open file: threads of one process need this too


@contextlib.contextmanager
def exclusive(device: str):
    """Held for the length of one verification on `device` (nothing on the CPU, where
    verifications share the cores and time nothing)."""
    if device != "cuda" or not _gpu_present():
        yield
        return
    with _local:
        try:
            handle = open(_path(), "a+")  # noqa: SIM115 (held across the yield)
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:  # no writable temporary folder: this process's threads still wait
            handle = None
        try:
            yield
        finally:
            if handle is not None:
                handle.close()  # closing the file releases the flock


def _gpu_present() -> bool:
    import torch

    return torch.cuda.is_available()


def _path() -> str:
    import torch

    try:
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        name = str(getattr(props, "uuid", "") or props.name)
    except Exception:  # a torch without the field: one lock for the machine's GPUs
        name = "any"
    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
    return os.path.join(tempfile.gettempdir(), f"warpsmith-gpu-{name}.lock")
