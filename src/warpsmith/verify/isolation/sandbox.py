"""Runs the candidate's worker in a fresh, OS-sandboxed process with a deadline and a bounded
log.

The process runs inside jail.py's sandbox (namespaces, its own uid, seccomp, limits) where
one can be had. The candidate's stdout and stderr go to a pipe that is drained into a bounded
tail, so a flood cannot fill a disk or block the worker; nothing it prints is ever parsed.
Results come back through a second pipe, read up to a size limit and parsed as one framed
message (protocol.py). A job is a folder of code, bound read-only (a spare gets a copy in the
inbox it was started with, read-only to it as well), and a message on the worker's stdin.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..protocol import ACK, CASE, INPUTS, SLOTS, TIMING, WAIT, Malformed, header, read_frames
from . import jail
from .proctree import descendants, environ_of, kill_tagged, pids, stopped  # noqa: F401

LOG_TAIL_BYTES = 8192
HEADER_BYTES = 1 << 20  # a frame's JSON header: records and reports are kilobytes
JOB_TAG = "WARPSMITH_JOB"


@dataclass(frozen=True)
class Outcome:
    returncode: int | None  # None when it was killed at the deadline
    timed_out: bool
    report: dict | None  # None when no well-formed report came back
    log_tail: str
    seconds: float
    malformed: str = ""  # why the messages could not be read, when they came back broken
    collected: tuple = ()  # what on_case returned for each case frame, in order


VERIFY_WORKER = ("-m", "warpsmith.verify.child.worker")


def run_worker(job_dir: Path, scratch: Path, timeout_s: float, env: dict[str, str],
               max_bytes: int, on_case=None, program: tuple[str, ...] = VERIFY_WORKER,
               started: Started | None = None, on_timing=None,
               job: bytes = b"") -> Outcome:
    """`on_case(header, payload)` runs for each case frame (protocol.py) while the worker
    waits for its ACK (a GPU worker keeps that call's exported outputs alive until then); it
    returns what Outcome.collected keeps, or raises protocol.Malformed when the frame is not
    what was expected (the outcome is then malformed). The time it takes does not count
    against the worker's deadline. `max_bytes`: the bound of one frame. `program`: the
    Python arguments that start the worker (the tuner's ranking worker is another); it is
    called with the job folder and the message pipe's fd.
    `started`: a worker already running and waiting for its job (start_waiting); it gets this
    job (and runs in its own scratch folder) and the deadline counts from now. If it is gone,
    a fresh worker is started instead. `job`: written to its stdin first (the job record,
    protocol.job_message). `on_case.request(header, payload)` answers the worker's inputs
    and slots frames with the bytes it gets next (a call's inputs, NO_MORE, or ACK once the
    slots are filled): nothing of a call exists in the worker before it asks for it.
    `on_timing(header, payload, elapsed)` runs for each timing frame with every process of
    the worker stopped (SIGSTOP: none of its threads runs, so none can launch work beside a
    baseline) and returns what the worker gets next (protocol.GO and its block, or END);
    `elapsed` is the trusted side's clock from the start of the write of its last answer to
    the last byte of this frame. Its time is not the worker's either."""
    if started is None or not started.send(job_dir, max_bytes):
        started = Started(program, [str(job_dir)], scratch, env, max_bytes, inbox=job_dir)
    if job:
        started.tell(job)
    try:
        return started.finish(timeout_s, on_case, on_timing)
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
                 env: dict[str, str], max_bytes: int, inbox: Path, own_inbox: bool = False,
                 jailed: bool = True):
        """`jailed`=False: a process of the trusted side's own code (the baselines',
        verify/timing/baseline_process.py), run with the same pipes outside the sandbox."""
        self.start, self.scratch, self.inbox = time.perf_counter(), scratch, inbox
        self.own_inbox = own_inbox
        self.token = secrets.token_hex(16)
        self.jail = jail.current() if jailed else jail.Jail("none", "the trusted side's code")
        self.uid = jail.new_uid() if self.jail.ok else None
        for folder in (scratch, inbox):
            jail.give(folder, self.uid)
        env = env | {JOB_TAG: self.token}  # inherited by every descendant, found in /proc
        read_fd, write_fd = os.pipe()
        self.last_reply: _Sent | None = None  # the last answer to a timing frame
        wrapped = jail.wrap(self.jail, [sys.executable, *program, *args, str(write_fd)],
                            writable=[scratch], uid=self.uid, keep_fds=(write_fd,),
                            readonly=[inbox])
        try:
            self.proc = subprocess.Popen(
                wrapped.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=scratch,
                pass_fds=wrapped.pass_fds)
        finally:
            for fd in (write_fd, *wrapped.close_after):
                os.close(fd)
        self.tail = _Tail(self.proc.stdout)
        self.frames = _Frames(os.fdopen(read_fd, "rb"), max_bytes)
        self.stdin = _Writer(self.proc.stdin)

    def send(self, job_dir: Path, max_bytes: int) -> bool:
        """Hand a waiting worker its job (a copy in its inbox); False (and the worker
        stopped) if it is gone."""
        if self.proc.poll() is not None or not self.frames.thread.is_alive():
            self.stop()
            return False
        self.frames.max_bytes = max_bytes  # set before the job goes: nothing came yet
        try:
            shutil.copytree(job_dir, self.inbox, dirs_exist_ok=True)
            jail.give(self.inbox, self.uid)
        except OSError:
            self.stop()
            return False
        self.tell(f"{self.inbox}\n".encode())
        self.start = time.perf_counter()
        return True

    def tell(self, data) -> _Sent:
        """Bytes (or a list of byte chunks) on the worker's stdin, written in order by a
        thread of their own: a call's inputs or a job of gigabytes fill the pipe until the
        worker reads them, and a worker that never reads must not block the trusted side
        past the deadline."""
        return self.stdin.put(data)

    def finish(self, timeout_s: float, on_case=None, on_timing=None) -> Outcome:
        """Reads frames until the report, the worker's end or the deadline."""
        self.deadline = self.start + timeout_s
        report, malformed, collected = None, "", []
        while report is None and not malformed:
            item = self._next_frame()
            if item is None or isinstance(item, str):
                malformed = item or ""
                break
            if len(item[0]) > HEADER_BYTES:  # a report or record of megabytes: the whole
                malformed = "a frame's header exceeded 1 MiB"  # of it would be a verdict's
                break  # reason, a --json line and a store row (E63)
            try:
                head = header(item[0])
            except ValueError as e:
                malformed = str(e)
                break
            if head.get("frame") not in (CASE, TIMING, INPUTS, SLOTS):
                report = head
                continue
            try:
                if head["frame"] == CASE:
                    collected.append(self._on_case(on_case, head, item[1]))
                elif head["frame"] == TIMING:
                    self._on_timing(on_timing, head, item[1], item[2])
                else:
                    self._on_request(on_case, head, item[1])
            except Malformed as e:
                malformed = str(e)
        timed_out = self.frames.timed_out
        self.stdin.close()
        if not timed_out and not malformed:  # its exit code is part of the outcome: a
            try:  # worker that died (SIGSEGV) is reaped by bubblewrap a moment after EOF
                self.proc.wait(timeout=max(1.0, self.deadline - time.perf_counter())
                               if report is not None else 5.0)
            except subprocess.TimeoutExpired:  # it reported, then did not end
                timed_out = report is not None
        self.stop()
        return Outcome(
            returncode=None if timed_out else self._returncode(), timed_out=timed_out,
            report=report, malformed=malformed, log_tail=self.tail.text(),
            seconds=time.perf_counter() - self.start, collected=tuple(collected))

    def _next_frame(self):
        """The next frame, None at the end (or the deadline: frames.timed_out), or a str that
        says why the messages are broken."""
        killed = False
        while True:
            left = self.deadline - time.perf_counter()
            if left <= 0:
                self.frames.timed_out = True
                return None
            try:
                return self.frames.queue.get(timeout=min(0.05, left))
            except queue.Empty:
                pass
            if self.proc.poll() is not None and not killed:  # gone, but a descendant may
                _kill_group(self.proc)  # still hold the pipe open
                _kill_tagged(self.token)
                killed = True  # one that outlives the kill holds it 30 s more at most
                self.deadline = min(self.deadline, time.perf_counter() + 30)

    def _on_case(self, on_case, head: dict, payload: bytes):
        if on_case is None:
            raise Malformed("the candidate's process sent outputs that were not expected")
        start = time.perf_counter()
        try:
            return on_case(head, payload)
        finally:  # the trusted side's work is not the candidate's time
            self.deadline += time.perf_counter() - start
            self.tell(ACK)

    def _on_request(self, on_case, head: dict, payload: bytes) -> None:
        if on_case is None or not hasattr(on_case, "request"):
            raise Malformed("the candidate's process asked for inputs that were not due")
        start = time.perf_counter()
        try:
            reply = on_case.request(head, payload)
        finally:  # making the inputs is the trusted side's work, not the candidate's time
            self.deadline += time.perf_counter() - start
        self.tell(reply)

    def _on_timing(self, on_timing, head: dict, payload: bytes, arrived: float) -> None:
        if on_timing is None:
            raise Malformed("the candidate's process sent timing that was not asked for")
        elapsed = self.last_reply.elapsed(arrived) if self.last_reply else None
        start, reply = time.perf_counter(), None
        try:
            with stopped(self.proc.pid, JOB_TAG, self.token):
                reply = on_timing(head, payload, elapsed)
        finally:
            self.deadline += time.perf_counter() - start
        if reply is not None:  # a block's clock runs from the last write (its GO)
            self.last_reply = self.tell(reply)

    def _returncode(self) -> int:
        """bubblewrap exits 128+N when its child died of signal N: reported as Popen would
        report the worker's own death (-N), so a segfault still reads as SIGSEGV."""
        code = self.proc.returncode
        return -(code - 128) if self.jail.ok and 128 < code < 160 else code

    def stop(self) -> None:
        """Kill it and everything it started (descendants that left its process group too;
        in the sandbox, its PID namespace dies with bubblewrap), then let the frame reader
        run to the pipe's end: frames sent after the report (three of 60 MB) blocked it on a
        full queue forever, a thread, a pipe and the frames' memory leaked per verification
        in a long-lived service."""
        self.stdin.close()
        _kill_group(self.proc)
        _kill_tagged(self.token)
        self.frames.drain()
        self.tail.thread.join(timeout=5)
        if self.own_inbox:
            shutil.rmtree(self.inbox, ignore_errors=True)


class _Sent:
    """One write to the worker's stdin: when its first byte went (the writer thread's
    perf_counter), or None while it waits its turn."""

    def __init__(self, data):
        self.data, self.at = data, None

    def elapsed(self, arrived: float) -> float | None:
        """Seconds from this write's start to a frame that came at `arrived`; None when the
        frame came first (a worker that answered before it was asked)."""
        at = self.at
        return arrived - at if at is not None and arrived > at else None


class _Writer:
    """The worker's stdin, written in order by one thread: nothing the trusted side tells
    the worker blocks it, whatever the worker reads. Once closed, writes are dropped."""

    def __init__(self, stream):
        self.stream, self.items = stream, queue.Queue()
        self.closed = False
        self.thread = threading.Thread(target=self._write, daemon=True)
        self.thread.start()

    def put(self, data) -> _Sent:
        sent = _Sent(data)
        if not self.closed:
            self.items.put(sent)
        return sent

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.items.put(None)

    def _write(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # a worker gone: its outcome says so
            while (sent := self.items.get()) is not None:
                chunks = sent.data if isinstance(sent.data, list) else [sent.data]
                sent.at = time.perf_counter()
                for chunk in chunks:
                    self.stream.write(chunk)
                self.stream.flush()
                sent.data = None  # a call's inputs let go once written
        with contextlib.suppress(OSError, ValueError):
            self.stream.close()


class _Frames:
    """Reads the result pipe into frames (protocol.read_frames), each at most max_bytes as
    it is when the frame starts (a spare's is set when it gets its job). The queue holds two
    at most: a worker that floods frames blocks on its pipe."""

    def __init__(self, stream, max_bytes: int):
        self.max_bytes, self.timed_out = max_bytes, False
        self.queue: queue.Queue = queue.Queue(maxsize=2)
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream) -> None:
        with stream:
            read_frames(stream, lambda: self.max_bytes, self.queue.put)

    def drain(self, seconds: float = 5.0) -> None:
        """Empty the queue until the reader has met the pipe's end (every writer is dead)."""
        end = time.perf_counter() + seconds
        while self.thread.is_alive() and time.perf_counter() < end:
            with contextlib.suppress(queue.Empty):
                while True:
                    self.queue.get_nowait()
            self.thread.join(timeout=0.05)
        with contextlib.suppress(queue.Empty):
            while True:
                self.queue.get_nowait()


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
