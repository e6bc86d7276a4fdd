"""The queue in front of the executor: a fixed pool of dispatcher threads, one per executor
slot, pulling jobs off one queue; identical candidates in flight share one job.

Only candidates the store could not answer get here (reward.py looks first). A job is keyed
by the verifier's cache key, so a second request for a candidate already queued or running
waits on that job's future instead of verifying it twice. A fresh verdict is stored before the
job leaves the in-flight table, and the table is checked, then the store again, under one
lock: a repeat arriving while its twin finishes finds one or the other, never neither.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..executors import Executor
from ..types import Task, Verdict
from ..verify.feedback import feedback_text
from .models import RewardSettings
from .stored import StoredVerdicts

log = logging.getLogger(__name__)


@dataclass
class Job:
    key: str
    task: Task
    source: str
    future: Future = field(default_factory=Future)
    enqueued: float = field(default_factory=time.monotonic)
    waiters: int = 1  # items (of any request) answered by this job
    attempts: int = 0
    queue_s: float = 0.0
    verify_s: float = 0.0


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    error: str | None
    attempts: int
    queue_s: float
    verify_s: float


class QueueFull(Exception):
    pass


class Dispatcher:
    def __init__(self, executor: Executor, settings: RewardSettings, workdir: Path,
                 stored: StoredVerdicts):
        self.executor, self.settings, self.workdir = executor, settings, workdir
        self.stored = stored
        self.jobs: queue.Queue[Job | None] = queue.Queue()
        self.lock = threading.Lock()
        self.in_flight: dict[str, Job] = {}
        self.pending = 0  # queued or running: what max_queue bounds
        self.running = 0
        self.shared = 0  # items that joined a job already in flight
        self.closed = False
        self.threads = [threading.Thread(target=self._loop, name=f"reward-dispatch-{i}",
                                         daemon=True)
                        for i in range(max(1, int(getattr(executor, "slots", 1))))]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def submit(self, wanted: list[Job]) -> list[Job | Verdict]:
        """For each wanted job, the job that will answer it (a twin in flight, or the job
        itself, queued) or the verdict its twin stored meanwhile. All new jobs of a batch are
        queued or none (QueueFull), so a full queue never half-answers a request."""
        with self.lock:
            if self.closed:
                raise QueueFull
            answers, new = self._match(wanted)
            if self.pending + len(new) > self.settings.max_queue:
                raise QueueFull
            self.pending += len(new)
            for job in new:
                self.in_flight[job.key] = job
            for want, answer in zip(wanted, answers, strict=True):
                if isinstance(answer, Job) and answer is not want:  # joins its twin
                    answer.waiters += 1
                    self.shared += 1
        for job in new:
            self.jobs.put(job)
        return answers

    def _match(self, wanted: list[Job]) -> tuple[list[Job | Verdict], list[Job]]:
        answers: list[Job | Verdict] = []
        new: dict[str, Job] = {}
        for job in wanted:
            twin = self.in_flight.get(job.key) or new.get(job.key)
            if twin is None and (hit := self.stored.lookup(job.task, job.source)) is not None:
                answers.append(hit)  # its twin finished after the handler looked
                continue
            if twin is None:
                twin = new[job.key] = job
            answers.append(twin)
        return answers, list(new.values())

    def release(self, jobs: list[Job]) -> None:
        """Items whose request went away: a job nobody waits on any more is cancelled if it
        has not started (a twin's request still gets its answer)."""
        with self.lock:
            for job in jobs:
                job.waiters -= 1
                if job.waiters <= 0 and job.future.cancel():
                    self.in_flight.pop(job.key, None)

    def depth(self) -> tuple[int, int]:
        with self.lock:
            return self.pending - self.running, self.running

    def close(self, wait_s: float = 30.0) -> None:
        with self.lock:
            self.closed = True
        for _ in self.threads:
            self.jobs.put(None)
        for thread in self.threads:
            thread.join(wait_s)
        while True:  # anything still queued (a thread stuck past wait_s) is answered, not lost
            try:
                job = self.jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None and job.future.set_running_or_notify_cancel():
                job.future.set_result(failed(job, "the service shut down before verifying it",
                                             self.settings.device))

    def _loop(self) -> None:
        while (job := self.jobs.get()) is not None:
            self._run(job)

    def _run(self, job: Job) -> None:
        if job.attempts == 0 and not job.future.set_running_or_notify_cancel():
            self._finished(job)  # every request waiting on it went away while it queued
            return
        start = time.monotonic()
        if job.attempts == 0:
            job.queue_s = start - job.enqueued
        job.attempts += 1
        with self.lock:
            self.running += 1
        try:
            outcome = self._attempt(job, start)
        finally:
            with self.lock:
                self.running -= 1
        if outcome is None:  # re-queued: the next free thread tries again
            self.jobs.put(job)
            return
        self._finished(job)
        job.future.set_result(outcome)

    def _attempt(self, job: Job, start: float) -> Outcome | None:
        try:
            verdict = self._verify(job)
            self.stored.save(job.task, job.source, verdict)
        except BaseException as e:  # any failure of the executor is an answer, never a hang
            job.verify_s += time.monotonic() - start
            log.warning("executor failed on %s (attempt %d): %r", job.task.name,
                        job.attempts, e, exc_info=True)
            if job.attempts <= self.settings.retries and not self.closed:
                return None  # closed: the queue may already be drained, so answer now
            message = f"the verification worker failed {job.attempts} times, last: {e!r}"
            return failed(job, message, self.settings.device)
        job.verify_s += time.monotonic() - start
        return Outcome(verdict, None, job.attempts, job.queue_s, job.verify_s)

    def _verify(self, job: Job) -> Verdict:
        digest = hashlib.sha256(job.source.encode()).hexdigest()[:16]
        path = self.workdir / f"{digest}-{uuid.uuid4().hex[:8]}.py"
        path.write_text(job.source)
        try:
            # no store: the service decides what is stored (stored.py), and it has looked
            return self.executor.verify(job.task, path, device=self.settings.device,
                                        profile=self.settings.profile, store_path=None)
        finally:
            path.unlink(missing_ok=True)

    def _finished(self, job: Job) -> None:
        with self.lock:
            self.pending -= 1
            if self.in_flight.get(job.key) is job:
                del self.in_flight[job.key]


def failed(job: Job, message: str, device: str | None) -> Outcome:
    verdict = Verdict(status="crashed", task=job.task.name, candidate="", device=device or "",
                      reasons=(message,))
    verdict = replace(verdict, feedback=feedback_text(verdict))
    return Outcome(verdict, message, job.attempts, job.queue_s, job.verify_s)
