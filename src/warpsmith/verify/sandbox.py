"""Runs the candidate's worker in a fresh, OS-sandboxed process with a deadline and a bounded
log.

The process runs inside jail.py's sandbox (namespaces, its own uid, seccomp, limits) where
one can be had. The candidate's stdout and stderr go to a pipe that is drained into a bounded
tail, so a flood cannot fill a disk or block the worker; nothing it prints is ever parsed.
Results come back through a second pipe, read up to a size limit and parsed as one framed
message (protocol.py). A job is a folder: the worker gets it (a spare gets a copy in the inbox
it was started with, the only folder besides its scratch cwd that it may write).
"""

from __future__ import annotations

import collections
import contextlib
import os
import secrets
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import jail
from .protocol import WAIT, read_frame

LOG_TAIL_BYTES = 8192
JOB_TAG = "WARPSMITH_JOB"


@dataclass(frozen=True)
class Outcome:
    returncode: int | None  # None when it was killed at the deadline
    timed_out: bool
    report: dict | None  # None when no well-formed message came back
    outputs: bytes  # the serialized outputs, to be read with torch.load(weights_only=True)
    log_tail: str
    seconds: float
    malformed: str = ""  # why the message could not be read, when one came back broken
    collected: object = None  # what run_worker's collect returned


VERIFY_WORKER = ("-m", "warpsmith.verify.child.worker")


def run_worker(job_dir: Path, scratch: Path, timeout_s: float, env: dict[str, str],
               max_bytes: int, collect=None, program: tuple[str, ...] = VERIFY_WORKER,
               started: Started | None = None, secret: bytes = b"") -> Outcome:
    """`collect(outputs)` runs once the message is in and before the worker may exit (a GPU
    worker waits for its stdin to close, keeping its exported outputs alive); its result is
    Outcome.collected. `program`: the Python arguments that start the worker (the tuner's
    ranking worker is another); it is called with the job folder and the message pipe's fd.
    `started`: a worker already running and waiting for its job (start_waiting); it gets this
    job (and runs in its own scratch folder) and the deadline counts from now. If it is gone,
    a fresh worker is started instead. `secret`: written to its stdin once it has its job,
    for the worker to read when it chooses (the seeds, after the candidate's import)."""
    if started is None or not started.send(job_dir, max_bytes):
        started = Started(program, [str(job_dir)], scratch, env, max_bytes, inbox=job_dir)
    if secret:
        started.tell(secret)
    try:
        return started.finish(timeout_s, collect)
    finally:  # an interrupt (Ctrl-C) or an error of ours still ends the worker
        started.stop()


def start_waiting(scratch: Path, env: dict[str, str], device: str,
                  program: tuple[str, ...] = VERIFY_WORKER) -> Started:
    """A worker started before its job: it pays its start-up (Python, imports, the CUDA
    context, the first profiler session) now, then waits on stdin for the job folder, which
    arrives as a copy in the inbox it was started with."""
    shm = Path("/dev/shm")
    inbox = Path(tempfile.mkdtemp(prefix="warpsmith-inbox-", dir=shm if shm.is_dir() else None))
    return Started(program, [f"{WAIT}:{device}"], scratch, env, max_bytes=0, inbox=inbox,
                   own_inbox=True)


class Started:
    """One worker process, from its start to its outcome."""

    def __init__(self, program: tuple[str, ...], args: list[str], scratch: Path,
                 env: dict[str, str], max_bytes: int, inbox: Path, own_inbox: bool = False):
        self.start, self.scratch, self.inbox = time.perf_counter(), scratch, inbox
        self.own_inbox = own_inbox
        self.token = secrets.token_hex(16)
        self.jail = jail.current()
        self.uid = jail.new_uid() if self.jail.ok else None
        for folder in (scratch, inbox):
            jail.give(folder, self.uid)
        env = env | {JOB_TAG: self.token}  # inherited by every descendant, found in /proc
        read_fd, write_fd = os.pipe()
        wrapped = jail.wrap(self.jail, [sys.executable, *program, *args, str(write_fd)],
                            writable=[scratch, inbox], uid=self.uid, keep_fds=(write_fd,))
        try:
            self.proc = subprocess.Popen(
                wrapped.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=scratch,
                pass_fds=wrapped.pass_fds)
        finally:
            for fd in (write_fd, *wrapped.close_after):
                os.close(fd)
        self.tail = _Tail(self.proc.stdout)
        self.message = _Message(os.fdopen(read_fd, "rb"), max_bytes)

    def send(self, job_dir: Path, max_bytes: int) -> bool:
        """Hand a waiting worker its job (a copy in its inbox); False (and the worker
        stopped) if it is gone."""
        if self.proc.poll() is not None or not self.message.thread.is_alive():
            self.stop()
            return False
        self.message.max_bytes = max_bytes  # set before the job goes: nothing came yet
        try:
            shutil.copytree(job_dir, self.inbox, dirs_exist_ok=True)
            jail.give(self.inbox, self.uid)
            self.proc.stdin.write(f"{self.inbox}\n".encode())
            self.proc.stdin.flush()
        except OSError:
            self.stop()
            return False
        self.start = time.perf_counter()
        return True

    def tell(self, data: bytes) -> None:
        """Bytes on the worker's stdin (a pipe's buffer holds them: they are small)."""
        with contextlib.suppress(OSError):  # a worker already gone: its outcome says so
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def finish(self, timeout_s: float, collect=None) -> Outcome:
        proc, message = self.proc, self.message
        deadline = self.start + timeout_s
        while message.thread.is_alive() and proc.poll() is None and \
                time.perf_counter() < deadline:
            message.thread.join(timeout=0.05)  # the message ends when the worker closes it
        if message.thread.is_alive() and proc.poll() is not None:  # gone, but a descendant
            _kill_group(proc)  # still holds the pipe open
            _kill_tagged(self.token)
            message.thread.join(timeout=30)
        timed_out = message.thread.is_alive()
        report, outputs, malformed = parse_message(message.data(), message.overflowed)
        collected = None
        if not timed_out and report is not None and collect is not None:
            collected = collect(outputs)
        with contextlib.suppress(OSError):
            proc.stdin.close()  # lets a waiting GPU worker exit
        if not timed_out:
            try:
                proc.wait(timeout=max(1.0, deadline - time.perf_counter()))
            except subprocess.TimeoutExpired:
                timed_out = True
        self.stop()
        return Outcome(
            returncode=None if timed_out else self._returncode(),
            timed_out=timed_out, report=report, outputs=outputs, malformed=malformed,
            log_tail=self.tail.text(), seconds=time.perf_counter() - self.start,
            collected=collected)

    def _returncode(self) -> int:
        """bubblewrap exits 128+N when its child died of signal N: reported as Popen would
        report the worker's own death (-N), so a segfault still reads as SIGSEGV."""
        code = self.proc.returncode
        return -(code - 128) if self.jail.ok and 128 < code < 160 else code

    def stop(self) -> None:
        """Kill it and everything it started (descendants that left its process group too;
        in the sandbox, its PID namespace dies with bubblewrap)."""
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        _kill_group(self.proc)
        _kill_tagged(self.token)
        self.tail.thread.join(timeout=5)
        if self.own_inbox:
            shutil.rmtree(self.inbox, ignore_errors=True)


class _Message:
    """Reads the result pipe to its end, keeping at most max_bytes."""

    def __init__(self, stream, max_bytes: int):
        self.chunks: list[bytes] = []
        self.size, self.max_bytes, self.overflowed = 0, max_bytes, False
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream) -> None:
        with stream:
            for chunk in iter(lambda: stream.read1(1 << 20), b""):
                if self.size + len(chunk) > self.max_bytes:
                    self.overflowed = True
                    continue  # keep draining so the writer never blocks
                self.chunks.append(chunk)
                self.size += len(chunk)

    def data(self) -> bytes:
        return b"".join(self.chunks)


def parse_message(data: bytes, overflowed: bool) -> tuple[dict | None, bytes, str]:
    """(report, outputs, why malformed). An empty message is a worker that never reported."""
    if overflowed:
        return None, b"", "the result message exceeded its size limit"
    if not data:
        return None, b"", ""
    try:
        report, outputs = read_frame(data)
    except (ValueError, struct.error, UnicodeDecodeError) as e:
        return None, b"", f"the result message is malformed ({e})"
    return report, outputs, ""


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


def _kill_group(proc: subprocess.Popen) -> None:
    """The worker and anything it spawned, even after the worker itself has exited."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _kill_tagged(token: str) -> None:
    """Kill every process whose environment carries this job's tag. A daemon that escaped
    the process group could otherwise outlive the verdict and rewrite the store. (One that
    execs with an empty environment escapes this too; an OS sandbox is the real remedy.)"""
    kill_tagged(JOB_TAG, token)


def kill_tagged(name: str, value: str, passes: int = 3) -> None:
    """Kill every other process whose environment has name=value (also used by the local
    executor for a dead worker's candidate process, which runs in a session of its own)."""
    tag = f"{name}={value}".encode()
    for _ in range(passes):
        found = [pid for pid in pids() if pid != os.getpid() and tag in environ_of(pid)]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def pids() -> list[int]:
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:  # no /proc (not Linux): nothing to scan
        return []


def environ_of(pid: int) -> list[bytes]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []
