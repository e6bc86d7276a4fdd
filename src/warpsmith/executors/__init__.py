"""Where verifications run. An executor takes (task, candidate file) and returns the verdict;
it decides on which GPU (or CPU worker) the verification happens and how many run at once.

    inline          in this process, one at a time (the default)
    local           every GPU of this machine: one worker process per GPU, one timed
                    measurement per GPU at a time (on a CPU machine: one worker per core)
    ray://ADDRESS   a Ray cluster: one actor per GPU (`ray` alone: a local Ray instance)

Every executor returns the same verdict `warpsmith.verify` would; none loosens a check.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Protocol

from ..types import Task, Verdict


class Executor(Protocol):
    slots: int  # verifications that may usefully be in flight at once

    def verify(self, task: Task, candidate: Path, device: str | None = None,
               profile: str = "quick", store_path: Path | None = None) -> Verdict:
        """Blocking and thread-safe: callers submit from several threads at once."""
        ...

    def close(self) -> None: ...


class InlineExecutor:
    """verify() in the calling process, one at a time (the verifier's process-global state,
    the RNG and the CUDA caching allocator, is not shared between threads)."""

    slots = 1

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

    def close(self) -> None:
        return None
