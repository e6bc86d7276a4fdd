"""The reward service: POST a batch of (task, candidate source), get verdicts and shaped rewards.

    request ─► body size limit ─► bearer token ─► per-client limit ─► tasks resolved
                                                                          │
                 ┌──────────── stored verdict (stored.py) ◄── store lookup ┤ not stored
                 │                                                        ▼
    response ◄─ reward ◄─ verdict ◄─ dispatcher threads ◄─ queue, identical candidates shared
                (shaping.py)          (executor.slots of them)   (dispatch.py, max_queue)
                                       └─► executor.verify(...) ─► verdict stored

A candidate the store has a verdict for is answered in the handler, never queued: RL batches
repeat candidates, and a repeat must not wait behind fresh verifications. Every item submitted
gets an answer. The verifier already turns a candidate that kills its process into a `crashed`
verdict; here, an executor that itself fails (a worker process that died, a lost Ray actor)
gets the item re-queued `retries` times, then answered with a `crashed` verdict that names the
failure. Nothing an item does can turn the batch into a 500. docs/reward-service.md describes
the API; models.py its bodies; shaping.py the reward.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import shutil
import tempfile
import threading
import time
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from .. import __version__
from ..config import db_path
from ..errors import UsageError
from ..executors import Executor
from ..rl.openrlhf import response_body
from ..rl.scoring import Score
from ..store import verdict_to_dict
from ..types import Task, Verdict
from ..verify.isolation import jail
from ..verify.pipeline import VERIFIER_VERSION
from .completions import from_completion, response_part
from .dispatch import Dispatcher, Job, Outcome, QueueFull
from .limits import BodyLimit, ClientLimiter
from .models import (
    Health,
    Item,
    ItemResult,
    OpenRLHFRequest,
    OpenRLHFResponse,
    RewardOverrides,
    RewardSettings,
    VerifyRequest,
    VerifyResponse,
)
from .resolve import TaskResolver
from .shaping import RewardConfig, shape_reward
from .stored import StoredVerdicts

__all__ = ["RewardSettings", "create_app", "serve_in_thread"]


class RewardService:
    def __init__(self, settings: RewardSettings, executor: Executor):
        if settings.require_sandbox:  # an RL policy paid by this service is the adversary
            jail.require()
        self.settings, self.executor = settings, executor
        self.limiter = ClientLimiter(settings.per_client)
        self.workdir: Path | None = None
        self.stored: StoredVerdicts | None = None
        self.dispatcher: Dispatcher | None = None
        self.resolver: TaskResolver | None = None
        self.stored_answers = 0
        self.counting = threading.Lock()  # handlers look up on several pool threads at once

    def start(self) -> None:
        store_path = self.settings.store_path or db_path()
        jail.hide(store_path.parent)  # a store outside the default folders stays out of sight
        self.stored = StoredVerdicts(store_path, self._device(), self.settings.profile)
        self.workdir = Path(tempfile.mkdtemp(prefix="warpsmith-reward-"))
        (self.workdir / "tasks").mkdir()
        self.resolver = TaskResolver(self.settings, self.workdir / "tasks")
        self.dispatcher = Dispatcher(self.executor, self.settings, self.workdir, self.stored)
        self.dispatcher.start()

    def stop(self) -> None:
        self.dispatcher.close()
        self.stored.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def _device(self) -> str:
        """The device the executor verifies on when none is set: the key depends on it."""
        if self.settings.device:
            return self.settings.device
        if device := getattr(self.executor, "default_device", None):
            return device
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    async def run(self, items: list[Item], config: RewardConfig) -> list[ItemResult]:
        tasks, texts, settled = await run_in_threadpool(self._prepare, items)
        wanted = {n: Job(self.stored.keys(tasks[n], texts[n])[0], tasks[n], texts[n])
                  for n in range(len(items)) if isinstance(tasks[n], Task) and n not in settled}
        outcomes = settled | await self._verified(wanted)
        return [_result(n, item, tasks[n], outcomes.get(n), config)
                for n, item in enumerate(items)]

    def _prepare(self, items: list[Item]) -> tuple[list, list, dict[int, Outcome]]:
        """Each item's task (or why not), its candidate's text, and the answers found without
        queueing: a completion with no code in it, or a verdict the store has."""
        tasks = [self.resolver.resolve(i.task) for i in items]
        texts, settled, stored = [], {}, 0
        for n, item in enumerate(items):
            name = tasks[n].name if isinstance(tasks[n], Task) else ""
            text, no_code = _candidate_text(item, name, self.settings.device or "")
            texts.append(text)
            if not isinstance(tasks[n], Task):
                continue
            if no_code is not None:
                settled[n] = Outcome(no_code, None, 0, 0.0, 0.0)
            elif (hit := self.stored.lookup(tasks[n], text)) is not None:
                settled[n] = Outcome(hit, None, 0, 0.0, 0.0)
                stored += 1
        with self.counting:
            self.stored_answers += stored
        return tasks, texts, settled

    async def _verified(self, wanted: dict[int, Job]) -> dict[int, Outcome]:
        if not wanted:
            return {}
        try:
            answers = await run_in_threadpool(self.dispatcher.submit, list(wanted.values()))
        except QueueFull:
            raise HTTPException(503, f"the queue is full ({self.settings.max_queue} items): "
                                "retry later", {"Retry-After": "5"}) from None
        jobs = [a for a in answers if isinstance(a, Job)]
        try:  # shielded: one request going away must not cancel a job its twins wait on
            done = iter(await asyncio.gather(*(asyncio.shield(asyncio.wrap_future(j.future))
                                               for j in jobs)))
        except asyncio.CancelledError:
            self.dispatcher.release(jobs)
            raise
        return {n: next(done) if isinstance(a, Job) else Outcome(a, None, 0, 0.0, 0.0)
                for n, a in zip(wanted, answers, strict=True)}

    def health(self) -> Health:
        queued, running = self.dispatcher.depth() if self.dispatcher else (0, 0)
        return Health(status="ok", version=__version__, verifier=VERIFIER_VERSION,
                      workers=len(self.dispatcher.threads) if self.dispatcher else 0,
                      queue_depth=queued, in_flight=running,
                      device=self.settings.device or "auto", profile=self.settings.profile,
                      auth=self.settings.token is not None,
                      stored_answers=self.stored_answers,
                      shared_answers=self.dispatcher.shared if self.dispatcher else 0)


def _candidate_text(item: Item, task_name: str, device: str) -> tuple[str, Verdict | None]:
    if item.candidate is not None:
        return item.candidate, None
    found = from_completion(item.completion, task_name, device)
    return found.source or "", found.verdict


def _result(n: int, item: Item, task: Task | str, outcome: Outcome | None,
            config: RewardConfig) -> ItemResult:
    ident = item.id if item.id is not None else str(n)
    if outcome is None:  # the task did not resolve: `task` is why
        name = item.task if isinstance(item.task, str) else item.task.name
        return ItemResult(id=ident, task=name, status="error", reward=None, error=task)
    parts = shape_reward(outcome.verdict, config)
    verdict = verdict_to_dict(outcome.verdict) | {"candidate": ident}  # not our temp file
    return ItemResult(id=ident, task=outcome.verdict.task, status=outcome.verdict.status,
                      reward=parts.reward, reward_parts=parts,
                      timing_measured=outcome.verdict.timing_measured, verdict=verdict,
                      error=outcome.error, attempts=outcome.attempts,
                      queue_s=round(outcome.queue_s, 4), verify_s=round(outcome.verify_s, 4))


def reward_config(base: RewardConfig, overrides: RewardOverrides | None) -> RewardConfig:
    if overrides is None:
        return base
    try:
        return replace(base, **overrides.model_dump(exclude_none=True))
    except UsageError as e:
        raise HTTPException(422, f"reward: {e}") from None


def create_app(settings: RewardSettings, executor: Executor) -> FastAPI:
    if settings.token is None and not settings.no_auth:
        raise UsageError("the reward service needs a token (--token or "
                         "$WARPSMITH_REWARD_TOKEN), or --no-auth for loopback use")
    service = RewardService(settings, executor)

    @asynccontextmanager
    async def lifespan(app):
        service.start()
        try:
            yield
        finally:
            await run_in_threadpool(service.stop)

    app = FastAPI(title="warpsmith reward service", version=__version__, lifespan=lifespan,
                  description="Verdicts and shaped rewards for batches of GPU kernel "
                              "candidates. docs/reward-service.md explains the reward.")
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.state.service = service
    _routes(app, service, _authenticator(settings.token))
    return app


# module level: the annotation is resolved from this module's globals (postponed annotations)
Credentials = Annotated[HTTPAuthorizationCredentials | None,
                        Depends(HTTPBearer(auto_error=False, description="the service's token"))]


def _authenticator(token: str | None):
    def authenticate(creds: Credentials) -> str:
        if token is None:
            return ""
        # compare_digest: the time taken must not tell how much of a guess was right
        if creds is None or not hmac.compare_digest(creds.credentials.encode(), token.encode()):
            raise HTTPException(401, "missing or wrong bearer token",
                                {"WWW-Authenticate": "Bearer"})
        return "token"

    return authenticate


def _token_or_query(token: str | None):
    """The bearer token, or `?token=` in the URL: OpenRLHF's reward client sends no headers
    (openrlhf/utils/agent.py posts with a bare aiohttp session), so its --remote_rm_url can
    carry the token only in the URL. Only the OpenRLHF endpoint takes it there."""
    bearer = _authenticator(token)

    def authenticate(creds: Credentials,
                     query_token: str | None = Query(None, alias="token", max_length=500)
                     ) -> str:
        if token is not None and creds is None and query_token is not None:
            if not hmac.compare_digest(query_token.encode(), token.encode()):
                raise HTTPException(401, "wrong token in the URL")
            return "token"
        return bearer(creds)

    return authenticate


def _client(request: Request, who: str, client_id: str | None) -> str:
    """Whom the per-client limit counts: the X-Client-Id a caller declares, else its token,
    else (without auth) its address. Declared ids are for fairness between cooperating
    trainers; max_queue is the bound nobody can talk their way past."""
    if client_id:
        return f"id:{client_id}"
    return who or f"peer:{request.client.host if request.client else '?'}"


def _routes(app: FastAPI, service: RewardService, authenticate) -> None:
    settings = service.settings
    errors = {401: {"description": "missing or wrong bearer token"},
              413: {"description": "body over max_body_bytes, or more than max_items items"},
              422: {"description": "malformed body or reward overrides"},
              429: {"description": "this client has per_client requests in flight"},
              503: {"description": "the queue is full"}}

    @app.get("/health", response_model=Health)
    def health() -> Health:
        return service.health()

    @app.post("/v1/verify", response_model=VerifyResponse, responses=errors)
    async def verify_batch(body: VerifyRequest, request: Request,
                           who: str = Depends(authenticate),
                           client_id: str | None = Header(None, alias="X-Client-Id",
                                                          max_length=200)) -> VerifyResponse:
        """Verify every item and answer them all at once, in order."""
        if len(body.items) > settings.max_items:
            raise HTTPException(413, f"{len(body.items)} items: at most {settings.max_items} "
                                "per request")
        config = reward_config(settings.reward, body.reward)
        start = time.monotonic()
        with service.limiter.hold(_client(request, who, client_id)):
            results = await service.run(body.items, config)
        return VerifyResponse(items=results, reward_config=config,
                              seconds=round(time.monotonic() - start, 4))

    _openrlhf_route(app, service, _token_or_query(settings.token), errors)


def _openrlhf_route(app: FastAPI, service: RewardService, authenticate, errors: dict) -> None:
    settings = service.settings

    @app.post("/v1/openrlhf", response_model=OpenRLHFResponse, responses=errors)
    async def openrlhf(body: OpenRLHFRequest, request: Request,
                       who: str = Depends(authenticate)) -> OpenRLHFResponse:
        """OpenRLHF's remote reward protocol (--remote_rm_url URL?token=TOKEN): one reward
        per query, the task named by its label; the service's reward settings."""
        items = _openrlhf_items(body)
        if len(items) > settings.max_items:
            raise HTTPException(413, f"{len(items)} items: at most {settings.max_items} "
                                "per request")
        with service.limiter.hold(_client(request, who, None)):
            results = await service.run(items, settings.reward)
        return openrlhf_response(results)


def _openrlhf_items(body: OpenRLHFRequest) -> list[Item]:
    n = len(body.query)
    prompts, labels = body.prompts or [""] * n, body.labels or [None] * n
    if len(prompts) != n or len(labels) != n:
        raise HTTPException(422, f"{n} queries but {len(prompts)} prompts and {len(labels)} "
                            "labels: one of each per query")
    # no label: the item's task name is empty, and that item alone is answered with an error
    return [Item(task=label or "", completion=response_part(query, prompt))
            for query, prompt, label in zip(body.query, prompts, labels, strict=True)]


def openrlhf_response(results: list[ItemResult]) -> OpenRLHFResponse:
    """OpenRLHF turns every value into a tensor: no nulls (rl/openrlhf.py decides how)."""
    scores = [Score(r.task or "", r.status, r.reward, error=r.error) for r in results]
    return OpenRLHFResponse(**response_body(scores))


@contextlib.contextmanager
def serve_in_thread(app: FastAPI, host: str = "127.0.0.1", port: int = 0):
    """uvicorn in a background thread on an already-bound socket, for tests and the load test:
    yields the base URL once the server accepts connections (lifespan done)."""
    import socket

    import uvicorn

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                           timeout_graceful_shutdown=10))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the reward service did not start")
        time.sleep(0.01)
    try:
        yield f"http://{host}:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
