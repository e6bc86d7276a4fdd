"""Every GPU of this machine: one long-lived worker process per GPU, each verifying one job at
a time, so each GPU has one timed measurement at a time. On a machine without a GPU, CPU
workers (the Triton interpreter; nothing is timed).

A worker is `python -m warpsmith.executors.local FD`, started with CUDA_VISIBLE_DEVICES naming
its one GPU before torch is imported. Jobs go in on its stdin and answers come back on pipe FD,
one JSON object a line (executors/jobs.py); its stdout is discarded, so nothing a library prints
can be taken for an answer. A worker that dies or hangs mid-job is replaced and the job run
again once on the new one; a second loss gives a `crashed` verdict.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .. import config
from ..config import profile as get_profile
from ..errors import UsageError
from ..types import Task, Verdict
from ..verify.isolation.sandbox import kill_tagged
from ..verify.protocol import signal_name
from .jobs import crashed, make_job, run_job, verdict_of

log = logging.getLogger(__name__)

# Inherited by everything a worker starts (the verifier's candidate processes included), so a
# dead worker's orphans can be found and killed before its job runs again on the same GPU.
WORKER_TAG = "WARPSMITH_EXECUTOR_WORKER"


class LocalExecutor:
    spec = "local"

    def __init__(self, gpus: list[int] | None = None, workers: int | None = None,
                 per_gpu: int = 1):
        """`per_gpu`: verifications at once on each GPU (`local:N`): they share it while they
        prepare and check and take it alone to be timed (verify/isolation/gpulock.py). On a machine
        without a GPU, `workers` (or `per_gpu` where given) CPU workers."""
        devices = _devices(gpus, workers or (per_gpu if per_gpu > 1 else None))
        on_gpus = devices[0] != ""
        self.per_gpu = max(1, per_gpu) if on_gpus else 1
        devices = [d for d in devices for _ in range(self.per_gpu)]
        self.slots = len(devices)
        self.spec = "local" if per_gpu <= 1 else f"local:{per_gpu}"
        self.default_device = "cuda" if on_gpus else "cpu"
        self._all: list[_Worker] = [_Worker(d, self.per_gpu > 1) for d in devices]
        self._idle: list[_Worker] = list(self._all)
        self._lent: set[str] = set()  # GPUs lent: their idle workers take no job
        self._changed = threading.Condition()
        self._closed = False

    def verify(self, task: Task, candidate: Path, device: str | None = None,
               profile: str = "quick", store_path: Path | None = None) -> Verdict:
        if self._closed:
            raise UsageError("this executor is closed")
        job = make_job(task, Path(candidate), device, profile, store_path)
        deadline_s = answer_deadline(profile) * self.per_gpu  # its turn may come last
        worker = self._take()
        try:
            answer, why = worker.ask(job, deadline_s)
            if answer is None:  # lost: a fresh worker on the same GPU runs it once more
                log.warning("executor worker %s died on %s (%s); running it again",
                            worker.pid, task.name, why)
                worker = self._replace(worker)
                answer, why = worker.ask(job, deadline_s)
            if answer is None:
                worker = self._replace(worker)
                return crashed(task, Path(candidate), device or self.default_device, why)
            return verdict_of(answer, Path(candidate))
        finally:
            self._give(worker)

    @contextlib.contextmanager
    def lend_gpu(self) -> Iterator[str | None]:
        """A GPU, its CUDA_VISIBLE_DEVICES entry, with none of its workers verifying while it
        is lent: every worker of that GPU is waited for (None on CPU workers, where one
        worker is taken: nothing is timed there)."""
        if self.default_device == "cpu":
            worker = self._take()
            try:
                yield None
            finally:
                self._give(worker)
            return
        with self._changed:
            self._changed.wait_for(lambda: len(self._lent) < len(self._gpus()))
            gpu = max((g for g in self._gpus() if g not in self._lent),
                      key=lambda g: sum(w.visible == g for w in self._idle))
            self._lent.add(gpu)
        try:
            with self._changed:
                self._changed.wait_for(lambda: all(w in self._idle for w in self._all
                                                   if w.visible == gpu))
            yield gpu
        finally:
            with self._changed:
                self._lent.discard(gpu)
                self._changed.notify_all()

    def _gpus(self) -> list[str]:
        return sorted({w.visible for w in self._all})

    def _take(self) -> _Worker:
        with self._changed:
            self._changed.wait_for(lambda: any(w.visible not in self._lent
                                               for w in self._idle))
            worker = next(w for w in self._idle if w.visible not in self._lent)
            self._idle.remove(worker)
            return worker

    def _give(self, worker: _Worker) -> None:
        with self._changed:
            self._idle.append(worker)
            self._changed.notify_all()

    def pids(self) -> list[int]:
        """The workers' process ids (to watch them, or to kill one in a test)."""
        return [w.pid for w in self._all]

    def close(self) -> None:
        """Idle workers exit at once; one still verifying is killed after a short grace."""
        self._closed = True
        for worker in self._all:
            worker.hang_up()
        end = time.monotonic() + 5
        for worker in self._all:
            worker.stop(end - time.monotonic())

    def _replace(self, worker: _Worker) -> _Worker:
        worker.stop(0)
        if self._closed:  # the loss was close() ending a busy worker: no verdict to give
            raise RuntimeError("the executor was closed while this verification ran")
        fresh = _Worker(worker.visible, worker.shared)
        self._all[self._all.index(worker)] = fresh
        return fresh


def answer_deadline(profile: str) -> float:
    """How long a worker may take before it counts as hung: the candidate's own deadline
    bounds its process, so this only catches the trusted side stuck (a wedged GPU)."""
    return 2 * get_profile(profile).timeout_s + 600


def _devices(gpus: list[int] | None, workers: int | None) -> list[str]:
    """CUDA_VISIBLE_DEVICES for each worker: one GPU each, or "" (no GPU) for CPU workers."""
    visible = visible_gpus()
    if gpus is None:
        gpus = list(range(len(visible)))
    if gpus:
        bad = [i for i in gpus if not 0 <= i < len(visible)]
        if bad:
            raise UsageError(f"no GPU {bad[0]} here (this machine shows {len(visible)})")
        return [visible[i] for i in gpus]
    count = workers or min(2, os.cpu_count() or 1)
    if count < 1:
        raise UsageError("a local executor needs at least one worker")
    return [""] * count


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as CUDA_VISIBLE_DEVICES entries: a worker for GPU i
    gets the i-th entry of ours, so `CUDA_VISIBLE_DEVICES=2,3 warpsmith …` uses GPUs 2 and 3."""
    import torch

    count = torch.cuda.device_count()
    ours = config.cuda_visible_devices()
    if ours is None:
        return [str(i) for i in range(count)]
    return [v.strip() for v in ours.split(",") if v.strip()][:count]


class _Worker:
    def __init__(self, visible: str, shared: bool = False):
        """`shared`: its verifications share the GPU with the other workers' while they
        prepare and check (config.gpu_shared)."""
        self.visible, self.shared = visible, shared
        self.tag = secrets.token_hex(8)
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=visible)
        env[config.GPU_SHARED] = "1" if shared else "0"
        env[WORKER_TAG] = self.tag
        read_fd, write_fd = os.pipe()
        # Its own session: a Ctrl-C at the terminal reaches only us, and we close the workers
        # (a worker also exits when our end of its stdin closes, so none outlives us).
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "warpsmith.executors.local", str(write_fd)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, pass_fds=(write_fd,),
            start_new_session=True)
        os.close(write_fd)
        self.pid = self.proc.pid
        self._answers = read_fd
        self._buffer = b""

    def ask(self, job: dict, deadline_s: float) -> tuple[dict | None, str]:
        """(answer, "") or (None, why the worker was lost)."""
        try:
            self.proc.stdin.write(json.dumps(job).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return None, self._why()
        line = self._read_line(time.monotonic() + deadline_s)
        if line is None:
            return None, self._why(deadline_s)
        return json.loads(line), ""

    def _read_line(self, deadline: float) -> bytes | None:
        """One answer line; None at EOF (the worker is gone) or past the deadline."""
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._answers], [], [], left)[0]:
                return None
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _why(self, deadline_s: float | None = None) -> str:
        try:  # a worker whose pipe closed is exiting: its status comes a moment later
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return f"no answer within {deadline_s:.0f} s" if deadline_s else "pipe closed"
        return f"killed by {signal_name(code)}" if code < 0 else signal_name(code)

    def hang_up(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()  # an idle worker exits at EOF

    def stop(self, grace_s: float = 5.0) -> None:
        """End the worker (killed if still busy after grace_s) and anything it left running."""
        self.hang_up()
        try:
            self.proc.wait(timeout=max(0.0, grace_s))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            os.close(self._answers)
        kill_tagged(WORKER_TAG, self.tag)


def main() -> None:
    """The worker: one job a line on stdin, one answer a line on the pipe, until EOF."""
    answers = os.fdopen(int(sys.argv[1]), "w")
    try:
        for line in sys.stdin:
            answers.write(json.dumps(run_job(json.loads(line))) + "\n")
            answers.flush()
    except BrokenPipeError:  # the executor is gone (closed or killed): nobody reads the answer;
        os._exit(1)  # not sys.exit: its flush of the dead pipe would print a second traceback


if __name__ == "__main__":
    main()
