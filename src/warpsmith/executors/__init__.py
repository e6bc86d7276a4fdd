"""Where verifications run. An executor takes (task, candidate file) and returns the verdict;
it decides on which GPU (or CPU worker) the verification happens and how many run at once.

    inline          in this process, one at a time (the default)
    local           every GPU of this machine: one worker process per GPU, one timed
                    measurement per GPU at a time (on a CPU machine: two CPU workers)
    local:N         N worker processes per GPU: they share it while they prepare and check,
                    and each takes it alone to be timed (verify/isolation/gpulock.py); N CPU workers
                    on a machine without a GPU
    ray             Ray as `ray.init()` finds it (RAY_ADDRESS, a cluster started on this
                    machine with `ray start`, else a new local instance): one actor per GPU
    ray://ADDRESS   the Ray cluster at ADDRESS (Ray Client), one actor per GPU

Every executor returns the same verdict `warpsmith.verify` would; none loosens a check.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from ..errors import UsageError
from ..types import Task, Verdict

FORMS = ("inline", "local", "local:N", "ray", "ray://ADDRESS")


class Executor(Protocol):
    slots: int  # verifications that may usefully be in flight at once

    def verify(self, task: Task, candidate: Path, device: str | None = None,
               profile: str = "quick", store_path: Path | None = None) -> Verdict:
        """Blocking and thread-safe: callers submit from several threads at once."""
        ...

    def close(self) -> None: ...

    # Optional: `lend_gpu()`, a context manager that keeps one of the executor's GPUs free of
    # its verifications while held and yields that GPU's CUDA_VISIBLE_DEVICES entry (None:
    # this process's default GPU). See lend_gpu() below.


class InlineExecutor:
    """verify() in the calling process, one at a time (the verifier's process-global state,
    the RNG and the CUDA caching allocator, is not shared between threads)."""

    slots = 1
    spec = "inline"

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def verify(self, task: Task, candidate: Path, device: str | None = None,
               profile: str = "quick", store_path: Path | None = None) -> Verdict:
        from ..store import VerdictStore
        from ..verify.pipeline import verify

        with self._lock:
            store = VerdictStore(store_path) if store_path else None
            try:
                return verify(task, candidate, device=device, profile=profile, store=store)
            finally:
                if store is not None:
                    store.close()

    @contextlib.contextmanager
    def lend_gpu(self) -> Iterator[None]:
        """It verifies on this process's default GPU: holding its lock keeps it free."""
        with self._lock:
            yield None

    def close(self) -> None:
        return None


def make_executor(spec: str | None) -> Executor:
    spec = check_spec(spec)
    if spec == "inline":
        return InlineExecutor()
    if spec.startswith("local"):
        from .local import LocalExecutor

        return LocalExecutor(per_gpu=int(spec.partition(":")[2] or 1))
    from .ray import RayExecutor

    return RayExecutor(None if spec == "ray" else spec)


def check_spec(spec: str | None) -> str:
    """The spec, normalised, or a UsageError: before a bench or a run records it."""
    spec = (spec or "inline").strip()
    if re.fullmatch(r"local:0*1", spec):
        spec = "local"
    if spec not in ("inline", "local", "ray") and not (spec.startswith("ray://") and
                                                       len(spec) > len("ray://")) and \
            not re.fullmatch(r"local:0*[1-9][0-9]?", spec):
        raise UsageError(f"unknown executor {spec!r} (valid forms: {', '.join(FORMS)})")
    if spec.startswith("ray") and importlib.util.find_spec("ray") is None:
        raise UsageError("the ray executor needs Ray: pip install 'warpsmith[ray]'")
    return spec


def spec_of(executor: Executor | str | None) -> str:
    """What to record with a bench or a run, so a resume uses the same kind of executor."""
    if executor is None or isinstance(executor, str):
        return check_spec(executor)
    return getattr(executor, "spec", "inline")


def lend_gpu(executor: Executor) -> contextlib.AbstractContextManager[str | None]:
    """A GPU for work that runs a candidate outside the executor (the tuner's ranking, the
    judge's profiler), kept free of the executor's timed verifications while held. An
    executor that cannot lend one (Ray: its GPUs may be on other machines) gives None, the
    default GPU, with no guarantee: a run then keeps only its own verifications off it."""
    lend = getattr(executor, "lend_gpu", None)
    return lend() if lend else contextlib.nullcontext(None)


@contextlib.contextmanager
def opened(executor: Executor | str | None) -> Iterator[Executor]:
    """An executor made from a spec (closed on exit), or the one given (its owner closes it)."""
    if executor is not None and not isinstance(executor, str):
        yield executor
        return
    made = make_executor(executor)
    try:
        yield made
    finally:
        made.close()
