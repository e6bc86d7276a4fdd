"""The reward service: POST a batch of (task, candidate source), get verdicts and shaped rewards.

    request ─► body size limit ─► bearer token ─► per-client limit ─► tasks resolved
                                                                          │ jobs
    response ◄─ reward (shaping.py) ◄─ verdict ◄─ dispatcher threads ◄─ queue (max_queue)
                                                   (executor.slots of them)
                                                   └─► executor.verify(...) ─► verdict store

Every item submitted gets an answer. The verifier already turns a candidate that kills its
process into a `crashed` verdict; here, an executor that itself fails (a worker process that
died, a lost Ray actor) gets the item re-queued `retries` times, then answered with a `crashed`
verdict that names the failure. Nothing an item does can turn the batch into a 500.
docs/reward-service.md describes the API; shaping.py the reward.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import queue
import re
import shutil
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from concurrent.futures import Future
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from .. import __version__
from ..config import db_path
from ..errors import UsageError, WarpsmithError
from ..executors import Executor
from ..store import verdict_to_dict
from ..tasks import BUILTIN, load_task
from ..types import Task, Verdict
from ..verify.feedback import feedback_text
from ..verify.pipeline import VERIFIER_VERSION
from .shaping import RewardConfig, RewardParts, shape_reward

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RewardSettings:
    token: str | None = None  # None serves without auth, and only with no_auth set
    no_auth: bool = False
    max_body_bytes: int = 4 << 20
    max_items: int = 64  # per request
    per_client: int = 4  # requests one client may have in flight at once
    max_queue: int = 1024  # items queued or running, all clients together
    retries: int = 1  # re-queues of an item whose executor call raised
    device: str | None = None  # None: cuda when a GPU is present, else cpu
    profile: str = "quick"
    store_path: Path | None = None  # None: config.db_path()
    task_dirs: tuple[Path, ...] = ()  # folders of task files servable by name, after builtin
    allow_task_source: bool = False  # task source is imported in this process, unsandboxed
    require_sandbox: bool = True  # refuse to start where candidates cannot run in one (jail)
    reward: RewardConfig = field(default_factory=RewardConfig)


# --- request and response bodies: these make /openapi.json ---------------------------------

class TaskSource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str = Field(description="the text of a KernelBench-format task file")
    name: str | None = Field(None, description="a name for it; default inline-<hash>")


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task: str | TaskSource = Field(description="a task name (level1/relu) or a task's source")
    candidate: str = Field(description="the candidate file's text: defines class ModelNew")
    id: str | None = Field(None, max_length=200, description="echoed back; default the index")


class RewardOverrides(BaseModel):
    """Per-request changes to the service's reward settings (docs/reward-service.md)."""

    model_config = ConfigDict(extra="forbid")
    baseline: Literal["compile", "eager", "roofline"] | None = None
    scale: Literal["log2", "linear"] | None = None
    lo: float | None = None
    hi: float | None = None
    correct: float | None = None
    incorrect: float | None = None
    rejected: float | None = None
    speed_weight: float | None = None


class VerifyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[Item] = Field(min_length=1)
    reward: RewardOverrides | None = None


class ItemResult(BaseModel):
    id: str
    task: str | None = None
    status: str = Field(description="the verdict's status, or 'error': not verified, see error")
    reward: float | None = Field(description="null: not judged here (needs_gpu, or an error)")
    reward_parts: RewardParts | None = None
    timing_measured: bool = False
    verdict: dict[str, Any] | None = None
    error: str | None = None
    attempts: int = 0
    queue_s: float = 0.0
    verify_s: float = 0.0


class VerifyResponse(BaseModel):
    items: list[ItemResult]
    reward_config: RewardConfig
    seconds: float


class Health(BaseModel):
    status: str
    version: str
    verifier: str
    workers: int
    queue_depth: int
    in_flight: int
    device: str
    profile: str
    auth: bool


# --- the queue in front of the executor ------------------------------------------------------

@dataclass
class Job:
    task: Task
    source: str
    future: Future = field(default_factory=Future)
    enqueued: float = field(default_factory=time.monotonic)
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


class Dispatcher:
    """A fixed pool of threads, one per executor slot, pulling jobs off one queue."""

    def __init__(self, executor: Executor, settings: RewardSettings, workdir: Path):
        self.executor, self.settings, self.workdir = executor, settings, workdir
        self.jobs: queue.Queue[Job | None] = queue.Queue()
        self.lock = threading.Lock()
        self.pending = 0  # queued or running: what max_queue bounds
        self.running = 0
        self.closed = False
        self.threads = [threading.Thread(target=self._loop, name=f"reward-dispatch-{i}",
                                         daemon=True)
                        for i in range(max(1, int(getattr(executor, "slots", 1))))]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def submit(self, jobs: list[Job]) -> bool:
        """All of a batch or none of it, so a full queue never half-answers a request."""
        with self.lock:
            if self.closed or self.pending + len(jobs) > self.settings.max_queue:
                return False
            self.pending += len(jobs)
        for job in jobs:
            self.jobs.put(job)
        return True

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
                job.future.set_result(_failed(job, "the service shut down before verifying it",
                                              self.settings.device))

    def _loop(self) -> None:
        while (job := self.jobs.get()) is not None:
            self._run(job)

    def _run(self, job: Job) -> None:
        if job.attempts == 0 and not job.future.set_running_or_notify_cancel():
            self._finished()  # its request was cancelled while it waited
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
        job.future.set_result(outcome)
        self._finished()

    def _attempt(self, job: Job, start: float) -> Outcome | None:
        try:
            verdict = self._verify(job)
        except BaseException as e:  # any failure of the executor is an answer, never a hang
            job.verify_s += time.monotonic() - start
            log.warning("executor failed on %s (attempt %d): %r", job.task.name,
                        job.attempts, e, exc_info=True)
            if job.attempts <= self.settings.retries and not self.closed:
                return None  # closed: the queue may already be drained, so answer now
            message = f"the verification worker failed {job.attempts} times, last: {e!r}"
            return _failed(job, message, self.settings.device)
        job.verify_s += time.monotonic() - start
        return Outcome(verdict, None, job.attempts, job.queue_s, job.verify_s)

    def _verify(self, job: Job) -> Verdict:
        digest = hashlib.sha256(job.source.encode()).hexdigest()[:16]
        path = self.workdir / f"{digest}-{uuid.uuid4().hex[:8]}.py"
        path.write_text(job.source)
        try:
            return self.executor.verify(job.task, path, device=self.settings.device,
                                        profile=self.settings.profile,
                                        store_path=self.settings.store_path or db_path())
        finally:
            path.unlink(missing_ok=True)

    def _finished(self) -> None:
        with self.lock:
            self.pending -= 1


def _failed(job: Job, message: str, device: str | None) -> Outcome:
    verdict = Verdict(status="crashed", task=job.task.name, candidate="", device=device or "",
                      reasons=(message,))
    verdict = replace(verdict, feedback=feedback_text(verdict))
    return Outcome(verdict, message, job.attempts, job.queue_s, job.verify_s)


# --- tasks -----------------------------------------------------------------------------------

NAME = re.compile(r"[A-Za-z0-9_.\-]+(/[A-Za-z0-9_.\-]+)*")


class TaskResolver:
    """Task names resolve only inside the built-in suite and the configured folders: a name is
    never taken as a path, since loading a task file runs it in this process."""

    def __init__(self, settings: RewardSettings, source_dir: Path, keep: int = 512):
        self.roots = [BUILTIN, *settings.task_dirs]
        self.allow_source = settings.allow_task_source
        self.source_dir = source_dir
        self.cache: OrderedDict[tuple, Task] = OrderedDict()
        self.keep = keep
        self.lock = threading.Lock()  # importing task modules is not thread-safe

    def resolve(self, ref: str | TaskSource) -> Task | str:
        """The task, or why not (failures as data: one bad item never sinks its batch)."""
        try:
            with self.lock:
                return self._named(ref) if isinstance(ref, str) else self._inline(ref)
        except WarpsmithError as e:
            return str(e)

    def _named(self, ref: str) -> Task:
        name = ref.removeprefix("builtin/").removesuffix(".py")
        if not NAME.fullmatch(name) or ".." in name.split("/"):
            raise UsageError(f"bad task name {ref!r}: give a built-in name such as level1/relu")
        return self._cached(("name", name), lambda: self._load_named(name))

    def _load_named(self, name: str) -> Task:
        for root in self.roots:
            path = root / f"{name}.py"
            if path.is_file() and path.resolve().is_relative_to(root.resolve()):
                level = name.split("/")[0] if "/" in name else None
                return load_task(path, name=name, level=level)
        where = "the built-in suite" + (" or --tasks folders" if len(self.roots) > 1 else "")
        raise UsageError(f"no task {name!r} in {where} (see `warpsmith tasks list builtin`)")

    def _inline(self, ref: TaskSource) -> Task:
        if not self.allow_source:
            raise UsageError("this service does not accept task source (it runs unsandboxed "
                             "in the service): start it with --allow-task-source, or send a "
                             "task name")
        digest = hashlib.sha256(ref.source.encode()).hexdigest()[:16]
        name = ref.name or f"inline-{digest[:12]}"
        if not NAME.fullmatch(name):
            raise UsageError(f"bad task name {name!r}: letters, digits, _ . - and /")

        def load() -> Task:
            path = self.source_dir / f"{digest}.py"
            path.write_text(ref.source)
            return load_task(path, name=name)

        return self._cached(("source", digest, name), load)

    def _cached(self, key: tuple, load) -> Task:
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        task = self.cache[key] = load()
        while len(self.cache) > self.keep:
            self.cache.popitem(last=False)
        return task


# --- limits ----------------------------------------------------------------------------------

class BodyLimit:
    """413 for a body over the limit, before any of it is parsed: by Content-Length when the
    client declares one, else by counting the streamed (chunked) bytes as they arrive."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            return await self._refuse(scope, receive, send)
        messages, size = [], 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.limit:
                return await self._refuse(scope, receive, send)
            if not message.get("more_body", False):
                break
        replay = iter(messages)

        async def replayed():
            return next(replay, None) or await receive()

        await self.app(scope, replayed, send)

    async def _refuse(self, scope, receive, send) -> None:
        response = JSONResponse({"detail": f"request body over the {self.limit}-byte limit"},
                                status_code=413)
        await response(scope, receive, send)


def _content_length(scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server rejects it; if not, the counting catches a big body
    return None


class ClientLimiter:
    def __init__(self, limit: int):
        self.limit = limit
        self.active: dict[str, int] = {}
        self.lock = threading.Lock()

    @contextlib.contextmanager
    def hold(self, client: str):
        with self.lock:
            if self.active.get(client, 0) >= self.limit:
                raise HTTPException(429, f"this client already has {self.limit} request(s) in "
                                    "flight: wait for one to finish", {"Retry-After": "1"})
            self.active[client] = self.active.get(client, 0) + 1
        try:
            yield
        finally:
            with self.lock:
                self.active[client] -= 1
                if not self.active[client]:
                    del self.active[client]


# --- the service -----------------------------------------------------------------------------

class RewardService:
    def __init__(self, settings: RewardSettings, executor: Executor):
        if settings.require_sandbox:  # an RL policy paid by this service is the adversary
            from ..verify import jail

            jail.require()
        self.settings, self.executor = settings, executor
        self.limiter = ClientLimiter(settings.per_client)
        self.workdir: Path | None = None
        self.dispatcher: Dispatcher | None = None
        self.resolver: TaskResolver | None = None

    def start(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="warpsmith-reward-"))
        (self.workdir / "tasks").mkdir()
        self.resolver = TaskResolver(self.settings, self.workdir / "tasks")
        self.dispatcher = Dispatcher(self.executor, self.settings, self.workdir)
        self.dispatcher.start()

    def stop(self) -> None:
        self.dispatcher.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    async def run(self, items: list[Item], config: RewardConfig) -> list[ItemResult]:
        tasks = await run_in_threadpool(lambda: [self.resolver.resolve(i.task) for i in items])
        jobs = {n: Job(tasks[n], item.candidate) for n, item in enumerate(items)
                if isinstance(tasks[n], Task)}
        if not self.dispatcher.submit(list(jobs.values())):
            raise HTTPException(503, f"the queue is full ({self.settings.max_queue} items): "
                                "retry later", {"Retry-After": "5"})
        outcomes = await asyncio.gather(*(asyncio.wrap_future(j.future) for j in jobs.values()))
        done = dict(zip(jobs, outcomes, strict=True))
        return [_result(n, item, tasks[n], done.get(n), config) for n, item in enumerate(items)]

    def health(self) -> Health:
        queued, running = self.dispatcher.depth() if self.dispatcher else (0, 0)
        return Health(status="ok", version=__version__, verifier=VERIFIER_VERSION,
                      workers=len(self.dispatcher.threads) if self.dispatcher else 0,
                      queue_depth=queued, in_flight=running,
                      device=self.settings.device or "auto", profile=self.settings.profile,
                      auth=self.settings.token is not None)


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
