"""`warpsmith optimize` as a function: make or reopen a run, let a strategy work until it is
done or the budget is spent, write the best verified candidate to a file, record the outcome.

A run's settings are stored with it, so `resume(run_id)` rebuilds the same run: attempts
already recorded are replayed from the store (no LLM call, no verification), the rest are made.
The executor spec (where verifications run, warpsmith.executors) is stored too; resume uses it
unless given another.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import config
from ..errors import UsageError
from ..executors import Executor, lend_gpu, opened, spec_of
from ..llm import ProviderSettings, make_provider
from ..store.runs import Attempt, RunStore
from ..tasks.suite import resolve_task
from .budget import Budget
from .context import RunContext, Settings
from .judge import is_advice
from .registry import JUDGE as JUDGE_STRATEGY
from .registry import LIBRARY, MODEL_FREE, TUNE, needs_model
from .registry import strategy as get_strategy


@dataclass(frozen=True)
class OptimizeResult:
    run_id: str
    status: str  # found, not_found, interrupted
    best: Attempt | None
    best_path: Path | None
    spend: dict
    stopped_by: str | None  # the budget limit that ended the run, if one did
    attempts: int
    note: str = ""  # why nothing was attempted, when a strategy says
    lanes: dict | None = None  # scheduler.Scheduler.summary(): busy and waiting seconds

    def spend_text(self) -> str:
        """What the run spent; one that paid no model call says so, not $0 and unpriced
        calls."""
        sp = self.spend
        if not sp["calls"]:
            return f"no model calls, {sp['wall_s']:.0f} s"
        unpriced = f" (+{sp['unpriced_calls']} unpriced calls)" if sp["unpriced_calls"] else ""
        return (f"{sp['calls']} LLM calls, {sp['tokens']} tokens, ${sp['usd']:.4f}{unpriced}, "
                f"{sp['wall_s']:.0f} s")

    def to_dict(self) -> dict:
        """The one JSON form of a result: `optimize --json` prints it, MCP's optimize
        returns it."""
        from ..store import verdict_to_dict

        best = self.best
        return {"run_id": self.run_id, "status": self.status,
                "best_candidate": str(self.best_path) if self.best_path else None,
                "best_attempt": best.number if best else None,  # as `runs show` numbers it
                "source": best.source if best else None,
                "verdict": verdict_to_dict(best.verdict) if best else None,
                "spend": self.spend, "stopped_by": self.stopped_by,
                "attempts": self.attempts, "note": self.note or None, "lanes": self.lanes}


DEFAULT_SETTINGS, UNLIMITED = Settings(), Budget()


def optimize(task: str, model: str, strategy: str, settings: Settings = DEFAULT_SETTINGS,
             budget: Budget = UNLIMITED, out: Path | None = None, db: Path | None = None,
             provider_settings: ProviderSettings | None = None,
             on_attempt: Callable[[Attempt], None] = lambda a: None,
             on_start: Callable[[str], None] = lambda run_id: None,
             executor: Executor | str | None = None) -> OptimizeResult:
    """`executor`: a spec ("inline", "local", "ray://…"), or an executor the caller owns."""
    get_strategy(strategy)  # a bad name fails before anything is recorded
    spec = spec_of(executor)
    if (model == LIBRARY) == needs_model(strategy):
        raise UsageError(f"the {' and '.join(MODEL_FREE)} strategies ask no model and the LLM "
                         "strategies need one: leave out --model for the offline library or "
                         "the tuner, or give one for an LLM strategy")
    settings = _with_start(settings, strategy)
    if settings.judge_model and strategy != JUDGE_STRATEGY:
        raise UsageError("--judge-model is for --strategy judge")
    resolve_task(task)  # an unknown task, model spec or missing key fails before a run exists
    for named in (model, settings.judge_model):
        if named and named != LIBRARY:
            make_provider(named, provider_settings or ProviderSettings())
    if Path(task).is_file():  # as resolve_task reads it; absolute, so --resume works anywhere
        task = str(Path(task).resolve())
    store = RunStore(db or config.db_path())
    run_id = store.new_run(task, model, strategy, {
        "settings": dataclasses.asdict(settings), "budget": dataclasses.asdict(budget),
        "out": str(out) if out else None, "executor": spec})
    store.close()
    on_start(run_id)
    return resume(run_id, db, provider_settings, on_attempt, executor=executor)


def resume(run_id: str, db: Path | None = None,
           provider_settings: ProviderSettings | None = None,
           on_attempt: Callable[[Attempt], None] = lambda a: None,
           budget: Budget | None = None,
           executor: Executor | str | None = None, out: Path | None = None) -> OptimizeResult:
    """Continue a run; `budget` replaces the stored one (to give a stopped run more),
    `executor` the stored executor spec, `out` the file the best is written to."""
    store = RunStore(db or config.db_path())
    try:
        record = store.run(run_id)
        if record is None:
            raise UsageError(f"no run {run_id!r} in {store.path} (see `warpsmith runs list`)")
        saved = record.settings
        budget = budget or Budget(**saved["budget"])
        with opened(executor or saved.get("executor")) as chosen:
            ctx = _context(record, store, db, provider_settings, on_attempt, budget, chosen)
            return _work(ctx, record.strategy, str(out) if out else saved.get("out"))
    finally:
        store.close()


def _context(record, store: RunStore, db, provider_settings, on_attempt,
             budget: Budget, executor: Executor) -> RunContext:
    settings = Settings(**record.settings["settings"])
    task = resolve_task(record.task)
    provider = None if record.model == LIBRARY else make_provider(
        record.model, provider_settings or ProviderSettings())
    judge = make_provider(settings.judge_model, provider_settings or ProviderSettings()) \
        if settings.judge_model else None
    verdicts = db or config.db_path()

    def verify_fn(task, path: Path):
        return executor.verify(task, path, device=settings.device, profile=settings.profile,
                               store_path=verdicts)

    workdir = config.artifacts_dir(store.path) / "runs" / record.id
    workdir.mkdir(parents=True, exist_ok=True)
    return RunContext(record.id, task, provider, store, verify_fn, budget, settings, workdir,
                      on_attempt, slots=executor.slots, judge_provider=judge,
                      lend_gpu=lambda: lend_gpu(executor))


def _work(ctx: RunContext, strategy: str, out: str | None) -> OptimizeResult:
    status = "interrupted"
    try:
        get_strategy(strategy).run(ctx)
        if ctx.settings.tune and strategy != TUNE and _timed(ctx.best):
            from .tuner import tune_best

            tune_best(ctx)  # the final step: only a timed kernel can be tuned
        status = "found" if ctx.best else "not_found"
    finally:  # Ctrl-C included: what was verified so far is kept and written
        path, failed = _write_best(ctx, out)
        ctx.store.set_status(ctx.run_id, status, ctx.best, str(path) if path else None)
    note = "\n".join(n for n in (ctx.note, failed) if n)
    return OptimizeResult(ctx.run_id, status, ctx.best, path, ctx.spend.as_dict(), ctx.stopped,
                          _candidates(ctx), note, ctx.lanes.summary())


def _candidates(ctx: RunContext) -> int:
    """Attempts that produced (or failed to produce) a candidate; a judge's advice is none."""
    return sum(not is_advice(a) for a in ctx.store.attempts(ctx.run_id))


def _timed(best: Attempt | None) -> bool:
    return best is not None and best.passed and best.verdict.timing_measured


def _with_start(settings: Settings, strategy: str) -> Settings:
    """The tune strategy's starting file, as an absolute path: a resume may run elsewhere."""
    if strategy != TUNE:
        return settings
    if not settings.start or not Path(settings.start).is_file():
        raise UsageError(f"the tune strategy needs a starting candidate file: --start FILE "
                         f"({settings.start or 'none given'})")
    return dataclasses.replace(settings, start=str(Path(settings.start).resolve()))


def _write_best(ctx: RunContext, out: str | None) -> tuple[Path | None, str]:
    """The best kernel, written first to the run's own folder (beside its store), then to
    `out`: a failed write there (a folder made read-only, a full disk) loses nothing, and the
    note says where the kernel is and how to write it again."""
    if ctx.best is None or ctx.best.source is None:
        return None, ""
    v = ctx.best.verdict
    speed = f"{v.speedup_vs_eager:.2f}x vs eager" if v.speedup_vs_eager else "not timed"
    text = (f"# warpsmith run {ctx.run_id}, attempt #{ctx.best.number}: {v.status} on "
            f"{v.device} ({speed})\n") + ctx.best.source
    kept = ctx.workdir / "best.py"
    kept.write_text(text)
    path = Path(out) if out else Path.cwd() / f"{ctx.task.title.replace('/', '_')}_best.py"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    except OSError as e:
        return kept, (f"could not write {path} ({e.strerror or e}); the kernel is kept at "
                      f"{kept}; `warpsmith optimize --resume {ctx.run_id} --out FILE` writes "
                      "it elsewhere")
    return path, ""
