"""Runs the candidate's worker in a fresh process with a deadline and a bounded log.

The candidate's stdout and stderr go to a pipe that is drained into a bounded tail, so a flood
cannot fill a disk or block the worker; nothing it prints is ever parsed.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

LOG_TAIL_BYTES = 8192


@dataclass(frozen=True)
class Outcome:
    returncode: int | None  # None when it was killed at the deadline
    timed_out: bool
    report: dict | None  # None when the worker died before writing one
    log_tail: str
    seconds: float


def run_worker(job_dir: Path, timeout_s: float, env: dict[str, str]) -> Outcome:
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "warpsmith.verify.worker", str(job_dir)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=env, start_new_session=True, cwd=job_dir)
    tail = _drain(proc.stdout)
    timed_out = False
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
    _kill_group(proc)
    tail.thread.join(timeout=5)
    return Outcome(
        returncode=None if timed_out else proc.returncode,
        timed_out=timed_out,
        report=_read_report(job_dir / "report.json"),
        log_tail=tail.text(),
        seconds=time.perf_counter() - start,
    )


class _Tail:
    def __init__(self, stream):
        self.chunks: collections.deque[bytes] = collections.deque()
        self.size = 0
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream) -> None:
        for chunk in iter(lambda: stream.read1(65536), b""):
            self.chunks.append(chunk)
            self.size += len(chunk)
            while self.size - len(self.chunks[0]) >= LOG_TAIL_BYTES:
                self.size -= len(self.chunks.popleft())

    def text(self) -> str:
        return b"".join(self.chunks)[-LOG_TAIL_BYTES:].decode("utf-8", "replace")


def _drain(stream) -> _Tail:
    return _Tail(stream)


def _kill_group(proc: subprocess.Popen) -> None:
    """The worker and anything it spawned, even after the worker itself has exited."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _read_report(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def signal_name(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"
