"""Completions to rewards, for the trainers' adapters: in this process (LocalScorer, the
verifier called directly) or through the reward service (ServiceScorer, over HTTP). Both
answer a batch of (task name, completion) with one Score each, in order, and never raise for
one bad item: an unknown task is that item's `error`, a service that cannot be reached is
every item's `unreachable`, and neither is paid (reward None).

Nothing heavy is imported here at load time: the verifier (and torch) only on a first local
score, so a trainer's config can import an adapter cheaply.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..errors import UsageError

log = logging.getLogger(__name__)

ERROR = "error"  # the item could not be verified: an unknown task, a bad item
UNREACHABLE = "unreachable"  # the service did not answer: nothing is known of the candidate


@dataclass(frozen=True)
class Score:
    task: str
    status: str  # a verdict status, "no_code", ERROR or UNREACHABLE
    reward: float | None  # None: not judged (needs_gpu, too_large, ERROR, UNREACHABLE)
    feedback: str = ""  # what to tell the model: the verdict's feedback, or the error
    error: str | None = None

    @property
    def judged(self) -> bool:
        return self.reward is not None

    @property
    def passed(self) -> bool:
        return self.status == "passed"


class Scorer(Protocol):
    def score(self, items: Sequence[tuple[str, str]]) -> list[Score]: ...


async def ascore(scorer: Scorer, items: Sequence[tuple[str, str]]) -> list[Score]:
    """The async form: the scoring runs on a worker thread, the event loop stays free."""
    return await asyncio.to_thread(scorer.score, list(items))


@dataclass
class LocalScorer:
    """The verifier in this process, one candidate at a time. `require_sandbox` (on by default,
    as for the reward service): the policy being trained is the adversary."""

    reward: object = None  # a serve.shaping.RewardConfig; None: its defaults
    device: str | None = None
    profile: str = "quick"
    store_path: str | None = None  # a verdict store shared with the CLI; None: no caching
    require_sandbox: bool = True
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _tasks: dict = field(default_factory=dict, repr=False)
    _store: object = field(default=None, repr=False)

    def score(self, items: Sequence[tuple[str, str]]) -> list[Score]:
        with self._lock:  # the store and the task cache are this scorer's, one call at a time
            return [self._one(task, completion) for task, completion in items]

    def _one(self, task_name: str, completion: str) -> Score:
        from .. import api
        from ..errors import WarpsmithError
        from ..serve.shaping import RewardConfig, shape_reward

        try:
            task = self._task(task_name)
            verdict = api.verify(task, completion=completion, device=self.device,
                                 profile=self.profile, store=self._opened_store(),
                                 require_sandbox=self.require_sandbox)
        except WarpsmithError as e:
            return Score(str(task_name), ERROR, None, str(e), str(e))
        parts = shape_reward(verdict, self.reward or RewardConfig())
        return Score(verdict.task, verdict.status, parts.reward, verdict.feedback)

    def _task(self, name: str):
        from ..tasks.suite import resolve_task

        if not isinstance(name, str) or not name:
            raise UsageError(f"no task named {name!r}: the task column must hold task names")
        if name not in self._tasks:
            self._tasks[name] = resolve_task(name)
        return self._tasks[name]

    def _opened_store(self):
        if self.store_path and self._store is None:
            from ..store import VerdictStore

            self._store = VerdictStore(self.store_path)
        return self._store


@dataclass(frozen=True)
class ServiceScorer:
    """The reward service (`warpsmith serve reward`) over HTTP, with the standard library's
    client: no dependency for the trainer to install. A batch goes in requests of at most
    `batch` items (the service's --max-items); a 429 or 503 is retried after its Retry-After."""

    url: str
    token: str | None = None  # None: $WARPSMITH_REWARD_TOKEN
    timeout: float = 900.0
    batch: int = 64
    retries: int = 5
    reward: dict | None = None  # per-request reward overrides (docs/reward-service.md)

    def score(self, items: Sequence[tuple[str, str]]) -> list[Score]:
        items = list(items)
        out: list[Score] = []
        for start in range(0, len(items), self.batch):
            out += self._chunk(items[start:start + self.batch])
        return out

    def _chunk(self, items: list[tuple[str, str]]) -> list[Score]:
        body = {"items": [{"task": str(t), "completion": c} for t, c in items]}
        if self.reward:
            body["reward"] = self.reward
        try:
            answer = self._post(body)
        except (OSError, TimeoutError, ValueError) as e:  # URLError is an OSError
            log.warning("the reward service at %s did not answer: %s", self.url, e)
            return [Score(str(t), UNREACHABLE, None, "", f"reward service: {e}") for t, _ in items]
        return [_from_item(i) for i in answer["items"]]

    def _post(self, body: dict) -> dict:
        from ..config import reward_token

        token = self.token or reward_token()
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(f"{self.url.rstrip('/')}/v1/verify", method="POST",
                                         data=json.dumps(body).encode(), headers=headers)
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as e:
                if e.code not in (429, 503) or attempt == self.retries:
                    raise _refused(e) from None
                time.sleep(float(e.headers.get("Retry-After") or 1))
        raise AssertionError("unreachable")


def _refused(e: urllib.error.HTTPError) -> Exception:
    detail = e.read().decode(errors="replace")[:500]
    if e.code in (401, 413, 422):  # the caller's mistake: say so rather than train on Nones
        return UsageError(f"the reward service refused the request ({e.code}): {detail}")
    return OSError(f"HTTP {e.code}: {detail}")


def _from_item(item: dict) -> Score:
    verdict = item.get("verdict") or {}
    return Score(item.get("task") or "", item["status"], item.get("reward"),
                 verdict.get("feedback") or item.get("error") or "", item.get("error"))


def scorer_for(url: str | None = None, token: str | None = None, **local) -> Scorer:
    """ServiceScorer when a URL is given, else LocalScorer with `local` options."""
    if url:
        return ServiceScorer(url, token)
    return LocalScorer(**local)


def completion_text(completion) -> str:
    """A completion as trainers hand it over: a string, or (conversational datasets, as TRL
    passes them) a list of {"role", "content"} messages: the assistant's text, its last
    message. Content given as parts ([{"type": "text", "text": ...}]) is joined."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, Iterable):
        messages = [m for m in completion if isinstance(m, dict)]
        said = [m for m in messages if m.get("role", "assistant") == "assistant"] or messages
        if said:
            return _content(said[-1].get("content"))
    return "" if completion is None else str(completion)


def _content(content) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""
