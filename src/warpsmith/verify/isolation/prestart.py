"""Candidate processes started before their job, so a verification does not wait for one to
start: Python, the torch and triton imports, the CUDA context and the first profiler session
are about half of a GPU verification's wall time (docs/benchmarks/verifier.md).

A trusted process keeps at most one spare, for one (device, environment). When the next one
starts is the policy (config.prestart):
  after   once a candidate's outcome is in: its start-up overlaps the comparison, the store,
          the search's next LLM call and the next reference, never a candidate's timed calls
          in this process
  ahead   as soon as one is taken: its start-up also overlaps that candidate's correctness and
          timing (CPU work and a CUDA context being made beside a timed measurement). A
          process's first verification took none, so it starts one as `after` does: a single
          `warpsmith verify` never has a spare starting beside its timed calls.
  off     every candidate starts its own process
A spare takes one job and exits, like a fresh worker; it runs under the same sandbox.
"""

from __future__ import annotations

import atexit
import logging
import shutil
import tempfile
import threading
from pathlib import Path

from ... import config
from ...errors import UsageError
from .sandbox import Started, start_waiting

POLICIES = ("off", "after", "ahead")
log = logging.getLogger(__name__)


class Spares:
    def __init__(self, start=start_waiting):
        """`start(scratch, env, device)`: a process that waits for its job (the candidate's
        worker by default; the baselines' process is the other kind kept here)."""
        self._lock, self._start = threading.Lock(), start
        self._spare: tuple[tuple, Started] | None = None

    def take(self, device: str, env: dict[str, str]) -> Started | None:
        """The spare if one was started for this device and environment, else None."""
        with self._lock:
            found, self._spare = self._spare, None
        if found is None:
            return None
        key, started = found
        wanted = _key(device, env)
        if key == wanted:
            return started
        changed = sorted(set(key[1]) ^ set(wanted[1]))
        log.info("spare discarded: device or environment changed (%s)",
                 ", ".join(dict.fromkeys(name for name, _ in changed)) or key[0])
        discard(started)
        return None

    def refill(self, device: str, env: dict[str, str]) -> None:
        with self._lock:
            if self._spare is not None:
                return
            scratch = Path(tempfile.mkdtemp(prefix="warpsmith-cwd-"))
            self._spare = (_key(device, env), self._start(scratch, env, device))

    def close(self) -> None:
        with self._lock:
            found, self._spare = self._spare, None
        if found is not None:
            discard(found[1])


def discard(started: Started) -> None:
    started.stop()
    shutil.rmtree(started.scratch, ignore_errors=True)


def policy(device: str) -> str:
    chosen = config.prestart(device)
    if chosen not in POLICIES:
        raise UsageError(f"WARPSMITH_PRESTART={chosen!r}: use one of {', '.join(POLICIES)}")
    return chosen


# Set in this process by a library, to the value a child derives by itself: inductor's
# cache_dir() writes its default into os.environ during the first verification, which would
# otherwise discard the first spare of every process (seen on the H200).
DERIVED = frozenset({"TORCHINDUCTOR_CACHE_DIR"})


def _key(device: str, env: dict[str, str]) -> tuple:
    return device, tuple(sorted((k, v) for k, v in env.items() if k not in DERIVED))


SPARES = Spares()  # one per trusted process: the CLI, a local executor's worker, a Ray actor
atexit.register(SPARES.close)
