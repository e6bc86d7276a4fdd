"""The verdict store as the reward service reads and writes it: looked up in the request
handler, before anything is queued, so a candidate seen before is answered in milliseconds
however many fresh ones wait for the executor.

A stored verdict is found by the verifier's own key (verify.pipeline.cache_key: task name and
source, candidate source, verifier version, device, profile and environment), computed here
with the verifier's own functions, so a hit is always a verdict for this exact task, profile,
device and environment. The environment is first this process's; executors whose workers
run elsewhere (Ray) may verify under another (a different GPU, a CUDA build): each fresh
verdict's environment is learned once its key is recomputed here and found equal, and later
lookups try it too. A key that cannot be recomputed is never guessed at: it just misses.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import replace
from pathlib import Path

from ..config import profile as get_profile
from ..store import VerdictStore
from ..types import Task, Verdict
from ..verify.pipeline import MACHINE_LIMITS, cache_key, environment

log = logging.getLogger(__name__)

# Verdicts about this machine at that moment, not the candidate: a timeout on a loaded
# machine, too_large, needs_gpu. Never stored by the service, and never answered from the
# store either (the CLI stores timeouts and needs_gpu): such an item is verified again.
NOT_THE_CANDIDATES = MACHINE_LIMITS | {"timeout", "needs_gpu"}
MAX_ENVIRONMENTS = 16  # learned from verdicts; a cluster has a few kinds of worker, not more


class StoredVerdicts:
    def __init__(self, path: Path, device: str, profile: str):
        self.store = VerdictStore(path)
        self.profile = get_profile(profile)
        self.lock = threading.Lock()
        self.environments: list[tuple[str, dict]] = [(device, environment(device))]
        self._warned = False

    def keys(self, task: Task, source: str) -> list[str]:
        """The keys the verifier may have stored this candidate under; the first is the one
        identical in-flight candidates are matched by."""
        with self.lock:
            known = list(self.environments)
        return [cache_key(task, source, device, self.profile, env) for device, env in known]

    def lookup(self, task: Task, source: str) -> Verdict | None:
        for key in self.keys(task, source):
            hit = self.store.get(key)
            if hit is not None and hit.status not in NOT_THE_CANDIDATES:
                return replace(hit, cached=True)
        return None

    def save(self, task: Task, source: str, verdict: Verdict) -> bool:
        """Store a fresh verdict the executor made, unless it is about the machine. Verdicts
        the service makes itself (a failed executor) have no key and are never stored."""
        if not verdict.cache_key or verdict.status in NOT_THE_CANDIDATES:
            return False
        self._learn(task, source, verdict)
        self.store.put(verdict)
        return True

    def close(self) -> None:
        self.store.close()

    def _learn(self, task: Task, source: str, verdict: Verdict) -> None:
        # the verifier adds the clocks it timed at after computing the key
        env = {k: v for k, v in verdict.environment.items() if k != "clocks"}
        known = (verdict.device, env)
        with self.lock:
            if known in self.environments or len(self.environments) >= MAX_ENVIRONMENTS:
                return
        if cache_key(task, source, verdict.device, self.profile, env) != verdict.cache_key:
            if not self._warned:  # a verifier whose key this code does not know how to make
                self._warned = True
                log.warning("cannot recompute the verifier's key for a verdict made under %s; "
                            "its repeats are verified again", json.dumps(env, sort_keys=True))
            return
        with self.lock:
            if known not in self.environments:
                self.environments.append(known)
