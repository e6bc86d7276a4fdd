"""The baselines' own process (child/reference_worker.py), driven from the trusted side one
frame at a time: eager and torch.compile are timed the way the candidate is, on the same
clock (the start of GO's write to the end of the `block` frame), through the same pipes and
the same block code, stopped between its blocks and resumed just before each GO as the
candidate's worker is. So a block's fixed cost (GO's transit, the wake-up, the frame with
its outputs) is in both sides of every ratio, not only the candidate's.

It is started with the candidate's worker, so its start-up and torch.compile's warm-up run
while the candidate's calls are checked. Anything that goes wrong here is the verifier's:
BaselineFailed, which verify/timing/baselines.py answers by timing the baselines in the trusted
process instead, with a note. Never the candidate's failure.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import json
import os
import queue
import shutil
import tempfile
import threading
import time
from pathlib import Path

import torch

from ...config import VerifyProfile, worker_environment
from ...types import Task
from ..checks.reference import Prepared
from ..isolation import prestart
from ..isolation.proctree import stopped
from ..isolation.sandbox import JOB_TAG, Started
from ..protocol import END, TIMING, go_line, header
from ..worker_report import finite

PROGRAM = ("-m", "warpsmith.verify.child.reference_worker")
MAX_FRAME = 64 << 20  # a block's outputs' handles (a GPU), or their bytes (the CPU's tests)


class BaselineFailed(Exception):
    """The baselines' process could not time them: the verifier's limit, never the
    candidate's. `oom`: it ran out of GPU memory."""

    def __init__(self, message: str, oom: bool = False):
        super().__init__(message)
        self.oom = oom


class BaselineProcess:
    def __init__(self, task: Task, prepared: Prepared, prof: VerifyProfile, device: str,
                 made_for: str = "", spare: Started | None = None, deferred: bool = False):
        """`made_for`: the key (key()) a kept process is taken by; a process without one
        is never kept. `spare`: a process started before its job (SPARES), else one is
        started now. `deferred`: its job (and so its warm-up's memory) waits until the
        timer first asks for it (memplan.Plan.deferred)."""
        self.deferred = deferred
        self.proc = spare or start(Path(tempfile.mkdtemp(prefix="warpsmith-baselines-")),
                                   worker_environment(device), device)
        self.scratch = self.proc.scratch
        self.timeout_s = prof.timeout_s
        self.keep = bool(made_for) and _keepable(prepared)
        self.key = made_for
        self.held: contextlib.ExitStack | None = None
        self._job(task, prepared, prof, device)

    @classmethod
    def open(cls, task: Task, prepared: Prepared, prof: VerifyProfile,
             device: str, deferred: bool = False) -> BaselineProcess:
        """The process kept from the last verification of this task, where the profile keeps
        them (`baselines="kept"`) and one is; else a spare started before this verification
        (prestart's policy), else a new one."""
        made_for = key(task, [prepared.timed_shape], prof, device) \
            if prof.baselines == "kept" else ""
        kept = KEPT.take(made_for) if made_for else None
        if kept is None:
            return cls(task, prepared, prof, device, made_for, _spare(device), deferred)
        kept.timeout_s, kept.deferred = prof.timeout_s, deferred
        kept._job(task, prepared, prof, device)
        return kept

    def _job(self, task: Task, prepared: Prepared, prof: VerifyProfile, device: str) -> None:
        self.ready: dict | None = None
        self.failed: BaselineFailed | None = None  # its ready frame's failure, kept
        self.startup: dict[str, float] = {}  # seconds: where the wait for `ready` went
        self.pending: bytes | None = _job(task, prepared, prof, device, self.keep)
        if not self.deferred:
            self._ask()

    def _ask(self) -> None:
        """The job sent: the process builds and warms up the baselines from now."""
        if self.pending is not None:
            self.asked = time.perf_counter()
            self.proc.tell(self.pending)
            self.pending = None

    # -- the protocol, as the candidate's worker speaks it ------------------------------

    def wait_ready(self) -> dict:
        """Its `ready` frame: the implementations it warmed up, notes on those it left out,
        eager's seconds per call. Waited for without a limit of the candidate's (the
        candidate's worker is stopped meanwhile), within the profile's timeout. Asked
        again after a failure, the same failure (the frame was read once)."""
        if self.failed is not None:
            raise self.failed
        if self.ready is None:
            self._ask()  # a deferred job: now, after the checks
            began = time.perf_counter()
            try:
                head, _, arrived = self._next("ready")
                impls, per_call = head.get("impls"), head.get("per_call_s")
                if not isinstance(impls, list) or "eager" not in impls or \
                        not isinstance(per_call, float):
                    raise BaselineFailed("the baselines' process sent a malformed ready "
                                         "frame")
            except BaselineFailed as e:
                self.failed = e
                raise
            self.ready = head
            self.startup = _startup(head.get("startup_s"), arrived - self.asked,
                                    time.perf_counter() - began)
            self._pause()
        return self.ready

    def sets(self, record: dict) -> bytes:
        """The sets' record answered with its `slots` frame's payload (IPC handles on a
        GPU); the process then waits, stopped, for its first GO."""
        self._resume()
        self.proc.tell(go_line(record))
        _, payload, _ = self._next("slots")
        self._next("idle")
        self._pause()
        return payload

    def block(self, record: dict, chunks: list[bytes]) -> float:
        """One block (GO with `record`, then the CPU's input bytes): seconds on the trusted
        side's clock, from the start of GO's write to the end of the `block` frame."""
        self._resume()
        sent = self.proc.tell([go_line(record), *chunks])
        _, _, arrived = self._next("block")
        elapsed = sent.elapsed(arrived)
        self._next("idle")
        self._pause()
        if elapsed is None:
            raise BaselineFailed("the baselines' block frame came before its GO")
        return elapsed

    def park(self) -> None:
        """END, and the process kept for the next verification of this task, not stopped
        (at the end of its input it exits) and not waited for: it frees its timing sets
        and says `parked` meanwhile (settle)."""
        with contextlib.suppress(Exception):
            self._resume()
            self.proc.tell(END)
            self.parked = False
            KEPT.put(self)
            return
        self.close()

    parked = False  # its `parked` frame read (settle)

    def settle(self) -> bool:
        """Its `parked` frame, a `ready` it sent for a timing that never began read on the
        way: its memory is back. False: it failed or went quiet (it is closed)."""
        try:
            while not self.parked:
                self.parked = self._next(("ready", "parked"))[0].get("kind") == "parked"
        except BaselineFailed:
            self.close()
            return False
        return True

    def close(self) -> None:
        """END, then the process and its scratch folder gone, whatever state it is in."""
        with contextlib.suppress(Exception):
            self._resume()
            self.proc.tell(END)
        self.proc.stop()
        shutil.rmtree(self.scratch, ignore_errors=True)

    # -- frames -------------------------------------------------------------------------

    def _next(self, kind: str | tuple[str, ...]) -> tuple[dict, bytes, float]:
        deadline = time.perf_counter() + self.timeout_s
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise BaselineFailed(f"the baselines' process sent no {kind} frame in "
                                     f"{self.timeout_s:.0f} s")
            try:
                item = self.proc.frames.queue.get(timeout=min(0.05, left))
                break
            except queue.Empty:
                if self.proc.proc.poll() is not None and self.proc.frames.queue.empty() \
                        and not self.proc.frames.thread.is_alive():
                    raise BaselineFailed(f"the baselines' process ended before its {kind} "
                                         f"frame: {self.proc.tail.text()[-300:]}") from None
        if item is None or isinstance(item, str):
            raise BaselineFailed(f"the baselines' process broke off ({item or 'its end'})")
        head = header(item[0])
        if head.get("frame") != TIMING:  # its report: it failed
            error = head.get("error") or {}
            raise BaselineFailed(f"the baselines' process failed: {error.get('type')}: "
                                 f"{str(error.get('message'))[:300]}",
                                 oom=error.get("type") == "OutOfMemoryError")
        if head.get("kind") not in ((kind,) if isinstance(kind, str) else kind):
            raise BaselineFailed(f"the baselines' process sent {head.get('kind')!r} for "
                                 f"{kind!r}")
        return head, item[1], item[2]

    def _pause(self) -> None:
        """Stopped (SIGSTOP) between its turns, as the candidate's worker is between its."""
        if self.held is None:
            self.held = contextlib.ExitStack()
            self.held.enter_context(stopped(self.proc.proc.pid, JOB_TAG, self.proc.token))

    def _resume(self) -> None:
        if self.held is not None:
            held, self.held = self.held, None
            held.close()


def start(scratch: Path, env: dict[str, str], device: str) -> Started:
    """The process, outside the sandbox (the trusted side's code), waiting on stdin for its
    job; meanwhile it imports what its job will need and makes its CUDA context (`device`)."""
    return Started(PROGRAM, [device, "-"], scratch, env, MAX_FRAME, inbox=scratch,
                   jailed=False)


# Started before their job, at the points where the candidate's spare is (the pipeline
# refills both): `import torch`, Inductor's import and the CUDA context were 5-8 s of each
# verification's wait for its baselines on the H100 (docs/benchmarks/verifier.md)
SPARES = prestart.Spares(start)
atexit.register(SPARES.close)


def _spare(device: str) -> Started | None:
    if prestart.policy(device) == "off":
        return None
    spare = SPARES.take(device, worker_environment(device))
    if spare is not None and spare.proc.poll() is not None:  # it died waiting
        prestart.discard(spare)
        return None
    return spare


def _startup(steps, ready_after: float, waited: float) -> dict[str, float]:
    """Seconds from the process's start to its `ready` frame, those the timing waited for it
    (the candidate's checks ran meanwhile), and the process's own steps (the model's build,
    each implementation's warm-up: torch.compile's build is in its first call); what the
    steps leave of `ready_after_s` is Python's, torch's and CUDA's start-up."""
    out = {"ready_after_s": ready_after, "waited_s": waited}
    if isinstance(steps, dict):
        out |= {str(k)[:40]: float(v) for k, v in list(steps.items())[:8] if finite(v)}
    return out


def _job(task: Task, prepared: Prepared, prof: VerifyProfile, device: str,
         keep: bool) -> bytes:
    """What the process reads from stdin: its record as a JSON line, then the timed shape's
    parameters (the reference's state: the trusted side's own model, rebuilt there)."""
    name = prepared.timed_shape
    record = {"task": str(Path(task.path).resolve()), "device": device, "timed_shape": name,
              "compile_modes": list(prof.compile_modes), "warmup_s": prof.warmup_s,
              "keep": keep}
    buffer = io.BytesIO()
    torch.save({name: prepared.shapes[name]}, buffer)
    data = buffer.getvalue()
    return f"{json.dumps(record)}\n{len(data)}\n".encode() + data


# -- kept between verifications ---------------------------------------------------------

KEEP_MAX_BYTES = 1 << 30  # a kept process holds the reference's state on the GPU meanwhile


def key(task: Task, shapes, prof: VerifyProfile, device: str) -> str:
    """What a kept process must have been made for: the task file's bytes, the timed shape
    (the last of `shapes`, as reference.prepare times it), the modes, the device and the
    GPU this process sees."""
    digest = hashlib.sha256(Path(task.path).read_bytes()).hexdigest()
    return json.dumps([str(Path(task.path).resolve()), digest, shapes[-1],
                       list(prof.compile_modes), prof.warmup_s, device,
                       os.environ.get("CUDA_VISIBLE_DEVICES")])


def _keepable(prepared: Prepared) -> bool:
    spec = prepared.shapes[prepared.timed_shape]
    held = [*spec["state_dict"].values(), *spec.get("buffers", {}).values()]
    return sum(t.numel() * t.element_size() for t in held
               if isinstance(t, torch.Tensor)) <= KEEP_MAX_BYTES


class _Kept:
    """At most one process, of the last task verified (a bench or a reward batch verifies
    one task's candidates in a row): taken by a verification of the same task, closed by
    any other one before its memory plan is made, and at exit."""

    def __init__(self):
        self.lock, self.held = threading.Lock(), None

    def take(self, wanted: str) -> BaselineProcess | None:
        with self.lock:
            held, self.held = self.held, None
        if held is not None and held.key == wanted and held.proc.proc.poll() is None and \
                held.settle():
            return held
        if held is not None:
            held.close()
        return None

    def keep_only(self, task: Task, shapes, prof: VerifyProfile, device: str) -> None:
        """Close a kept process of another task (its memory back before the plan); the key
        read (the task file hashed) only where one is kept."""
        if self.held is None:
            return
        held = self.take(key(task, shapes, prof, device))
        if held is not None:
            self.put(held)

    def put(self, process: BaselineProcess) -> None:
        with self.lock:
            old, self.held = self.held, process
        if old is not None:
            old.close()

    def close(self) -> None:
        self.take("")


KEPT = _Kept()
atexit.register(KEPT.close)
