"""A Ray cluster: one actor per GPU (`num_gpus=1`, so Ray gives each its own GPU and one timed
measurement runs per GPU at a time); on a cluster without GPUs, CPU actors.

An actor may run on a machine that has neither our task file, our candidate file nor our
SQLite store, so a job carries the two sources as text (executors/jobs.py) and the verdict
comes back as a dict; the caller looks the verdict store up before sending and writes to it
after. The cache key is the one verify() computes, with the actor's environment (its torch,
its GPU), so a verdict cached here is one that actor would have produced.

An actor that dies mid-job is replaced and the job run again once, on the next free actor; a
second loss gives a `crashed` verdict. warpsmith must be importable on every node (the same
version: the verdict's meaning depends on the verifier's).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
from dataclasses import replace
from pathlib import Path

from ..config import profile as get_profile
from ..errors import UsageError
from ..types import Task, Verdict
from ..verify.isolation.sandbox import environ_of, pids
from .jobs import crashed, make_job, run_job, verdict_of
from .local import WORKER_TAG, answer_deadline

log = logging.getLogger(__name__)


def import_ray():
    try:
        import ray
    except ImportError:
        raise UsageError("the ray executor needs Ray: pip install 'warpsmith[ray]'") from None
    return ray


class VerifyActor:
    """Runs on a Ray worker; becomes an actor class through ray.remote() in RayExecutor."""

    def __init__(self):
        # Tag what this actor starts (the candidate's process runs in its own session and
        # outlives a killed actor); the next actor on this node kills a dead one's leftovers,
        # so they do not share the GPU with the job's second run.
        kill_orphans()
        os.environ[WORKER_TAG] = f"ray-{os.getpid()}"

    def describe(self, device: str | None) -> dict:
        """The device a job without one verifies on, and the environment of the cache key."""
        import torch

        from ..verify.pipeline import environment

        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        return {"device": device, "environment": environment(device)}

    def verify(self, job: dict) -> dict:
        return run_job(job)


class RayExecutor:
    def __init__(self, address: str | None = None, workers: int | None = None):
        """address: None as ray.init() (RAY_ADDRESS, a running local cluster, else a new local
        instance), "local" for a new local instance, or a cluster address (ray://HOST:PORT).
        workers: actors on a cluster without GPUs (default: one per CPU)."""
        ray = import_ray()
        self.spec = "ray" if address in (None, "local") else address
        self._owns = not ray.is_initialized()  # shut down on close only what we started
        if self._owns:
            ray.init(address=address, log_to_driver=False)
        gpus = int(ray.cluster_resources().get("GPU", 0))
        count = gpus or workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._actor_class = ray.remote(num_gpus=1 if gpus else 0, num_cpus=0 if gpus else 1)(
            VerifyActor)
        self.slots = count
        self.default_device = "cuda" if gpus else "cpu"
        self._free: queue.Queue = queue.Queue()
        self._actors: list = []
        for _ in range(count):
            self._free.put(self._start())
        self._closed = False

    def verify(self, task: Task, candidate: Path, device: str | None = None,
               profile: str = "quick", store_path: Path | None = None) -> Verdict:
        if self._closed:
            raise UsageError("this executor is closed")
        candidate = Path(candidate)
        job = make_job(task, candidate, device, profile, portable=True)
        verdict, why = self._attempt(job, task, candidate, store_path)
        if verdict is None:  # that actor died: once more, on the next free one
            log.warning("ray actor died on %s (%s); running it again", task.name, why)
            verdict, why = self._attempt(job, task, candidate, store_path)
        if verdict is None and self._closed:  # close() ended it: no verdict to give
            raise RuntimeError("the executor was closed while this verification ran")
        return verdict or crashed(task, candidate, device or self.default_device, why)

    def close(self) -> None:
        """Ends every actor, busy or not: a verification still running gets no verdict."""
        ray = import_ray()
        self._closed = True
        for actor in list(self._actors):
            ray.kill(actor)
        if self._owns:
            ray.shutdown()

    def _start(self):
        actor = self._actor_class.remote()
        self._actors.append(actor)
        return actor

    def _drop(self, actor):
        with contextlib.suppress(ValueError):
            self._actors.remove(actor)
        return self._start()

    def _attempt(self, job: dict, task: Task, candidate: Path,
                 store_path: Path | None) -> tuple[Verdict | None, str]:
        """One try on a free actor; a lost actor is replaced by a fresh one in the pool."""
        actor, lost = self._free.get(), False
        try:
            verdict, why = self._on(actor, job, task, candidate, store_path)
            lost = verdict is None
            return verdict, why
        finally:
            self._free.put(self._drop(actor) if lost and not self._closed else actor)

    def _on(self, actor, job: dict, task: Task, candidate: Path,
            store_path: Path | None) -> tuple[Verdict | None, str]:
        """(verdict, "") or (None, why the actor was lost)."""
        ray = import_ray()
        from ray.exceptions import GetTimeoutError, RayActorError

        store = _store(store_path)
        try:
            described = ray.get(actor.describe.remote(job["device"]), timeout=600)
            key = _key(task, job, described)
            if store is not None and (hit := store.get(key)) is not None:
                return replace(hit, cached=True), ""
            answer = ray.get(actor.verify.remote(job), timeout=answer_deadline(job["profile"]))
            verdict = verdict_of(answer, candidate)
            if store is not None:
                store.put(verdict)
            return verdict, ""
        except RayActorError as e:
            return None, f"actor died: {type(e).__name__}"
        except GetTimeoutError:
            ray.kill(actor)
            return None, "no answer in time"
        finally:
            if store is not None:
                store.close()


def _store(store_path: Path | None):
    from ..store import VerdictStore

    return VerdictStore(store_path) if store_path else None


def _key(task: Task, job: dict, described: dict) -> str:
    from ..verify.pipeline import cache_key

    return cache_key(task, job["candidate"]["source"], described["device"],
                     get_profile(job["profile"]), described["environment"])


def kill_orphans() -> None:
    """Kill what dead actors on this node left running (their tag names a pid now gone)."""
    prefix = f"{WORKER_TAG}=ray-".encode()
    for pid in pids():
        tags = [e for e in environ_of(pid) if e.startswith(prefix)]
        owner = int(tags[0][len(prefix):]) if tags and tags[0][len(prefix):].isdigit() else None
        if owner is not None and owner != pid and not os.path.exists(f"/proc/{owner}"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
