"""`warpsmith bench` as a function: every task of a suite × K samples from a generator,
each verified, each committed to the store the moment it exists.

Resuming is re-running: `resume(bench_id)` rebuilds the bench from its stored settings and
skips every (task, sample) already committed, so nothing is verified twice (the verdict store's
cache also answers for a candidate verified just before a kill) and a kill loses at most the
item in progress.

The budget is the bench's total. Each item gets an equal share (an llm search stops at its
share); before each item the bench checks its total spend, so it stops cleanly once the whole
budget is used and `resume(..., budget=more)` goes on.

Items run `executor.slots` at a time (warpsmith.executors: one per GPU with `local` or `ray`),
each on its own thread, every verification through the executor; the main thread alone
commits items and reports progress. With one slot (inline) the item runs on the main thread,
as it always did, so Ctrl-C reaches a search in progress and it stops cleanly. With more, Ctrl-C
leaves the items in flight unfinished (they are done again on resume; the verdict cache answers
for what they verified). The executor spec is stored with the bench; resume uses it unless
given another (every executor gives the same verdicts, only faster or slower).
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import config
from ..errors import TaskError, UsageError
from ..executors import Executor, opened, spec_of
from ..search.budget import Budget
from ..tasks.suite import load_suite
from ..types import Task
from .generators import Generator, Job, Options, Produced, canonical, make_generator, options_from
from .store import BenchRecord, BenchStore, Item

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BenchSettings:
    samples: int = 1  # K: independent samples per task; the report takes the best verified
    device: str = "cpu"
    profile: str = "quick"
    budget: Budget = Budget()


@dataclass(frozen=True)
class Progress:
    bench_id: str
    done: int  # items committed, earlier sessions included
    total: int
    current: str | None  # "task #sample" starting now; None when an item just finished
    last: Item | None  # the item just finished
    elapsed_s: float  # this session
    eta_s: float | None  # None until one item has a duration
    spent_usd: float | None  # whole bench; None when the generator buys nothing
    eta_usd: float | None


@dataclass(frozen=True)
class BenchResult:
    bench_id: str
    status: str  # finished, budget, interrupted
    done: int
    total: int
    stopped_by: str | None


def noop(*_args) -> None:
    return None


DEFAULT_SETTINGS, DEFAULT_OPTIONS = BenchSettings(), Options()


def bench(suite: str | Path, generator: str, settings: BenchSettings = DEFAULT_SETTINGS,
          options: Options = DEFAULT_OPTIONS, db: Path | None = None, provider_settings=None,
          on_progress: Callable[[Progress], None] = noop,
          on_start: Callable[[str], None] = noop,
          executor: Executor | str | None = None,
          only: list[str] | None = None) -> BenchResult:
    """`executor`: a spec ("inline", "local", "ray://…"), or an executor the caller owns;
    `only`: some of the suite's tasks, by name ("level1/relu" or "relu")."""
    make_generator(generator, options, provider_settings)  # a bad spec fails before recording
    spec = spec_of(executor)
    tasks, errors = load_suite(suite)
    if not tasks:
        raise UsageError(f"suite {suite} has no loadable task (see `warpsmith tasks list`)")
    if only:
        tasks = select(tasks, only, suite)
    store = BenchStore(db or config.db_path())
    bench_id = store.new_bench(_suite_ref(suite), canonical(generator), {
        "samples": settings.samples, "device": settings.device, "profile": settings.profile,
        "budget": dataclasses.asdict(settings.budget), "options": dataclasses.asdict(options),
        "tasks": [t.name for t in tasks], "not_loaded": [str(e) for e in errors],
        "executor": spec})
    store.close()
    on_start(bench_id)
    return resume(bench_id, db, provider_settings, on_progress, executor=executor)


def select(tasks: list[Task], names: list[str], suite) -> list[Task]:
    """The suite's tasks named in `names` (full or last part of the name, with or without
    the digest a folder's tasks are stored with), in suite order."""
    short = {t.title.rsplit("/", 1)[-1]: t.name for t in tasks} | {t.title: t.name for t in tasks}
    full = {t.name for t in tasks}
    unknown = [n for n in names if n not in full and n not in short]
    if unknown:
        raise UsageError(f"no task {', '.join(unknown)} in suite {suite} "
                         "(see `warpsmith tasks list`)")
    wanted = {short.get(n, n) for n in names}
    return [t for t in tasks if t.name in wanted]


def resume(bench_id: str, db: Path | None = None, provider_settings=None,
           on_progress: Callable[[Progress], None] = noop,
           budget: Budget | None = None,
           executor: Executor | str | None = None) -> BenchResult:
    """Continue a bench; `budget` replaces the stored one (to give a stopped bench more),
    `executor` the stored executor spec."""
    store = BenchStore(db or config.db_path())
    try:
        record = store.bench(bench_id)
        if record is None:
            raise UsageError(f"no bench {bench_id!r} in {store.path} "
                             "(`warpsmith report` lists them)")
        if budget is not None:
            store.set_budget(bench_id, dataclasses.asdict(budget))
            record = store.bench(bench_id)
        with opened(executor or record.settings.get("executor")) as chosen:
            run = _Run(record, store, chosen, provider_settings, on_progress, budget)
            return run.work()
    finally:
        store.close()


class _Run:
    def __init__(self, record: BenchRecord, store: BenchStore, executor: Executor,
                 provider_settings, on_progress, budget: Budget | None):
        s = record.settings
        self.record, self.store, self.executor = record, store, executor
        self.slots = max(1, executor.slots)
        self.on_progress = on_progress
        self.samples, self.device, self.profile = s["samples"], s["device"], s["profile"]
        self.budget = budget or Budget(**s["budget"])
        self.generator: Generator = make_generator(record.generator, options_from(
            s.get("options", {})), provider_settings)
        self.tasks = _tasks(record)
        self.share = share(self.budget, record.total_items)
        self.workdir = config.artifacts_dir(store.path) / "bench" / record.id
        self.items = {(i.task, i.sample): i for i in store.items(record.id)}
        self.started = time.monotonic()

    def work(self) -> BenchResult:
        self.store.set_status(self.record.id, "running")
        status, stopped = "interrupted", None
        try:
            stopped = self._loop()
            status = "budget" if stopped else "finished"
        finally:  # Ctrl-C included: what is committed stays, the status says what happened
            self.store.set_status(self.record.id, status)
        return BenchResult(self.record.id, status, len(self.items), self.record.total_items,
                           stopped)

    def _loop(self) -> str | None:
        """Start items while slots are free and budget is left; commit each as it ends. An
        item that raises stops new starts; the others in flight finish and are committed
        before the error goes on."""
        todo = [(t, s) for t in self.tasks for s in range(self.samples)
                if (t.name, s) not in self.items]
        finished: queue.Queue = queue.Queue()
        running, stopped, failure = 0, None, None
        while True:
            while todo and running < self.slots and stopped is None and failure is None:
                stopped = exhausted(self.budget, list(self.items.values()), self.slots)
                if stopped is None:
                    self._start(*todo.pop(0), finished)
                    running += 1
            if running == 0:
                break
            key, item, error = finished.get()
            running -= 1
            failure = failure or error
            if item is not None:
                self.items[key] = self.store.add(self.record.id, item)
                self._report(None, self.items[key])
        if failure is not None:
            raise failure
        return stopped

    def _start(self, task: Task, sample: int, finished: queue.Queue) -> None:
        """With one slot the item runs here, on the caller's thread; with more, on a daemon
        thread (one left running by Ctrl-C must not hold the process open)."""
        self._report(f"{task.title} #{sample}", None)
        if self.slots == 1:
            finished.put(((task.name, sample), self._one(task, sample), None))
            return

        def work():
            try:
                finished.put(((task.name, sample), self._one(task, sample), None))
            except Exception as e:  # handed to the main thread, which raises it
                finished.put(((task.name, sample), None, e))

        threading.Thread(target=work, name=f"bench {task.name} #{sample}", daemon=True).start()

    def _one(self, task: Task, sample: int) -> Item:
        start = time.monotonic()
        job = Job(task, sample, self.device, self.profile, self.share, self.store.path,
                  self.workdir, self.store.pending(self.record.id, task.name, sample),
                  lambda run_id: self.store.set_pending(self.record.id, task.name, sample,
                                                        run_id), self.executor)
        produced = self.generator.produce(job)
        verdict = produced.verdict
        if verdict is None and produced.candidate is not None:
            try:
                verdict = self.executor.verify(task, produced.candidate, device=self.device,
                                               profile=self.profile,
                                               store_path=self.store.path)
            except UsageError:  # the bench itself is wrong (a setting, a missing tool)
                raise
            except Exception as e:  # one task's verification, never the whole bench
                log.warning("verifying %s #%d raised %s", task.name, sample, e)
                first = str(e).splitlines()[0][:300] if str(e) else ""
                produced = dataclasses.replace(  # a task that cannot be verified as written
                    produced, status="task_error" if isinstance(e, TaskError)
                    else "verifier_error",
                    note=f"the verifier raised {type(e).__name__}: {first}")
        return _item(task, sample, produced, verdict, time.monotonic() - start)

    def _report(self, current: str | None, last: Item | None) -> None:
        done = list(self.items.values())
        left = self.record.total_items - len(done)
        self.on_progress(Progress(self.record.id, len(done), self.record.total_items, current,
                                  last, time.monotonic() - self.started,
                                  _eta([i.seconds for i in done], left, self.slots),
                                  _spent(done), _eta(_costs(done), left)))


def _item(task: Task, sample: int, produced: Produced, verdict, seconds: float) -> Item:
    status = verdict.status if verdict is not None else produced.status or "no_candidate"
    candidate = produced.candidate
    source = candidate.read_text() if candidate is not None and candidate.is_file() else None
    return Item(task.name, sample, status, task.level, verdict,
                str(candidate) if candidate else None, source, produced.run_id,
                produced.cost_usd, produced.spend, round(seconds, 3), produced.note)


def _tasks(record: BenchRecord) -> list[Task]:
    """The bench's tasks in their stored order; a task that no longer loads is left out."""
    loaded = {t.name: t for t in load_suite(record.suite)[0]}
    missing = [n for n in record.settings["tasks"] if n not in loaded]
    if missing:
        log.warning("bench %s: tasks no longer in %s: %s", record.id, record.suite,
                    ", ".join(missing))
    return [loaded[n] for n in record.settings["tasks"] if n in loaded]


def _suite_ref(suite: str | Path) -> str:
    """Built-in names as they are; a folder as an absolute path, so resume works anywhere."""
    text = str(suite)
    if text == "builtin" or text.startswith("builtin/"):
        return text
    return str(Path(text).resolve())


def share(budget: Budget, items: int) -> Budget:
    """One item's equal part of the bench's budget (at least one call where calls count)."""
    n = max(1, items)
    return Budget(calls=None if budget.calls is None else max(1, budget.calls // n),
                  tokens=None if budget.tokens is None else max(1, budget.tokens // n),
                  usd=None if budget.usd is None else budget.usd / n,
                  wall_s=None if budget.wall_s is None else budget.wall_s / n,
                  gpu_s=None if budget.gpu_s is None else budget.gpu_s / n)


def exhausted(budget: Budget, items: list[Item], slots: int = 1) -> str | None:
    """Which of the bench's limits its committed items have reached. Wall time is the sum of
    the items' durations over the items that run at once (`slots`, the executor's workers), so
    time between sessions is not counted."""
    used = {"calls": sum(i.spend.get("calls", 0) for i in items),
            "tokens": sum(i.spend.get("tokens", 0) for i in items),
            "usd": sum(i.cost_usd or 0.0 for i in items),
            "wall": sum(i.seconds for i in items) / max(1, slots),
            "gpu": sum(i.spend.get("gpu_s", 0.0) for i in items)}
    limits = {"calls": budget.calls, "tokens": budget.tokens, "usd": budget.usd,
              "wall": budget.wall_s, "gpu": budget.gpu_s}
    return next((k for k, limit in limits.items() if limit is not None and used[k] >= limit),
                None)


def _eta(values: list[float], left: int, at_once: int = 1) -> float | None:
    """The mean of what the done items took, times the items left, over the items that run at
    once (time: slots; money is spent all the same)."""
    return statistics.fmean(values) * left / at_once if values else None


def _costs(items: list[Item]) -> list[float]:
    return [i.cost_usd for i in items if i.cost_usd is not None]


def _spent(items: list[Item]) -> float | None:
    costs = _costs(items)
    return sum(costs) if costs else None
