"""`warpsmith bench SUITE --generator G [--samples K] [--budget …]`."""

from __future__ import annotations

import json

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from ..config import PROFILES, writable_store
from ..errors import UsageError
from ..executors import check_spec
from ..types import readable_task_name
from . import common, output

err = output.err_console()


@click.command("bench")
@click.argument("suite", required=False)
@click.option("--generator", "generator", help="dir:PATH (existing candidate files), "
              "llm:STRATEGY:MODEL_SPEC (e.g. llm:refine:openai:gpt-4.1), library (the offline "
              "kernel library) or reference (each task's own reference: a self-check of the "
              "suite, nothing bought).")
@click.option("--tasks", "only", default=None, metavar="NAMES",
              help="Only these tasks of SUITE, comma-separated (level1/relu or relu).")
@click.option("--samples", type=int, default=1, show_default=True,
              help="K independent samples per task; the report takes the best verified one.")
@click.option("--budget", default=None, help="Limits for the whole bench, e.g. usd=20,calls=400,"
              "wall=2h; each item gets an equal share and the bench stops at the total.")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default=None,
              help="cuda when a GPU is present; cpu verifies with the Triton interpreter "
                   "(nothing is timed).")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), default="quick",
              show_default=True)
@click.option("--language", type=click.Choice(["triton", "cuda"]), default="triton",
              show_default=True, help="llm: what the model is asked to write.")
@click.option("--width", type=int, default=1, show_default=True,
              help="llm: best-of-n samples, or refine chains, inside each item's search.")
@click.option("--depth", type=int, default=4, show_default=True,
              help="llm: refine rounds per chain (evolve: generations); library: knob-tuner "
                   "rounds (0: none).")
@click.option("--no-tune", is_flag=True, help="llm, library: skip the generic tuner that "
              "otherwise runs on each item's best kernel (GPU only).")
@click.option("--executor", default=None, metavar="SPEC",
              help="Where verifications run: inline (one at a time, here), local (a worker "
                   "per GPU of this machine), local:N (N per GPU: they check at once and "
                   "are timed one at a time), ray or ray://ADDRESS (an actor per GPU of a "
                   "Ray cluster). [default: inline; on --resume, the bench's own]")
@click.option("--resume", "resume_id", default=None, metavar="BENCH_ID",
              help="Continue bench BENCH_ID: committed items are skipped, not verified again. "
                   "Takes --budget, --executor, --db, --json; the rest are the bench's.")
@common.db_option()
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report at the end.")
@click.pass_context
@output.results_only
def bench_command(ctx, suite, generator, only, samples, budget, device, profile, language,
                  width, depth, no_tune, executor, resume_id, db, as_json) -> int:
    """Score a generator over SUITE: every task × K samples, verified, committed one by one.

    \b
    Exit codes: 0 every item done, 1 stopped by the budget, 2 bad usage, 130 Ctrl-C
    (resume either).
    Examples (KERNELS: a folder of relu.py, softmax.py, … defining ModelNew; ~/KernelBench:
    a KernelBench clone; BENCH_ID: an id, as `warpsmith report` lists them):
      warpsmith bench builtin/level1 --generator reference --tasks relu --device cpu
      warpsmith bench builtin/level1 --generator dir:KERNELS --device cpu
      warpsmith bench ~/KernelBench/KernelBench/level1 --generator dir:~/KernelBench/runs/r1
      warpsmith bench builtin/level1 --generator llm:refine:openai:gpt-4.1 --budget usd=20
      warpsmith bench builtin/level1 --generator library --executor local
      warpsmith bench builtin/level1 --generator library --tasks relu,softmax,sdpa_causal
      warpsmith bench ~/KernelBench/KernelBench/level1 --generator reference
      warpsmith bench --resume BENCH_ID
    """
    if resume_id:  # the rest are the bench's own settings, stored with it
        common.resume_only(ctx, "budget", "executor", "db", "as_json")
    else:  # a missing SUITE or --generator is said before torch is imported
        _suite(suite), _generator(generator)
    store = writable_store(db)  # before any work (and torch): a bad folder is one line
    if not resume_id and generator.startswith("llm:"):
        common.writable_llm_cache()
    from ..bench import Options, bench, resume
    from ..search import parse_budget

    limits = parse_budget(budget) if budget else None
    if executor is not None:
        check_spec(executor)  # a bad spec fails before the progress bar starts
    common.hide_store(db)
    if not resume_id:  # so does every other usage error
        plan = (_suite(suite), _generator(generator), _settings(samples, device, profile, limits),
                Options(language, width, depth, tune=not no_tune))
        only = _names(only)
    view = _View()  # --json owns stdout only: progress still goes to stderr
    try:
        with view:
            if resume_id:
                result = resume(resume_id, store, on_progress=view.update, budget=limits,
                                executor=executor)
            else:
                result = bench(*plan, store, on_progress=view.update, on_start=view.start,
                               executor=executor, only=only)
    except KeyboardInterrupt:
        return common.interrupted("warpsmith bench", view.bench_id, db)
    _finish(result, store, as_json, db)
    return 0 if result.status == "finished" else 1


def _names(only: str | None) -> list[str] | None:
    names = [n.strip() for n in (only or "").split(",") if n.strip()]
    if only is not None and not names:
        raise UsageError("--tasks needs at least one task name")
    return names or None


def _suite(suite: str | None) -> str:
    if not suite:
        raise UsageError("give a SUITE (builtin/level1, or a folder of task files) or "
                         "--resume BENCH_ID")
    return suite


def _generator(generator: str | None) -> str:
    if not generator:
        raise UsageError("give --generator: dir:PATH (a folder of candidate files), "
                         "llm:STRATEGY:MODEL_SPEC (e.g. llm:refine:openai:gpt-4.1), library "
                         "or reference (a self-check of the suite)")
    return generator


def _settings(samples: int, device: str | None, profile: str, limits):
    from ..bench import BenchSettings
    from ..search import parse_budget

    if samples < 1:
        raise UsageError("--samples must be at least 1")
    return BenchSettings(samples, common.device(device), profile, limits or parse_budget(None))


class _View:
    """A rich progress bar on stderr with time and cost left (on a terminal), and one line
    per item (always: a bench run under nohup or a scheduler shows where it is in its log)."""

    def __init__(self, quiet: bool = False):
        self.quiet, self.bench_id, self.task = quiet, None, None
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                            MofNCompleteColumn(), TextColumn("{task.fields[left]}"),
                            console=err, transient=True, disable=quiet)

    def __enter__(self):
        # the bar starts with the first item: a usage error found while the bench is set up
        # (an unknown generator, a task the suite lacks) is then one line, not a line after
        # a blank one the bar left
        self.live = False
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc) if self.live else None

    def _show(self) -> None:
        if not self.live:
            self.live = True
            self.bar.__enter__()

    def start(self, bench_id: str) -> None:
        self.bench_id = bench_id
        if not self.quiet:
            err.print(f"bench {bench_id}", highlight=False)

    def update(self, p) -> None:
        self._show()
        self.bench_id = p.bench_id
        if self.task is None:
            self.task = self.bar.add_task("", total=p.total, left="")
        self.bar.update(self.task, completed=p.done, description=p.current or "",
                        left=_left(p))
        if p.last is not None and not self.quiet:
            name = readable_task_name(p.last.task)
            self.bar.console.print(f"{name} #{p.last.sample}: {_status(p.last)}",
                                   highlight=False)


def _left(p) -> str:
    if p.eta_s is None:
        return "estimating…"
    cost = f", ~${p.eta_usd:.2f} more (${p.spent_usd:.2f} spent)" if p.eta_usd is not None \
        else ""
    return f"~{_duration(p.eta_s)} left{cost}"


def _duration(seconds: float) -> str:
    minutes, s = divmod(int(seconds), 60)
    hours, m = divmod(minutes, 60)
    return f"{hours}h{m:02d}m" if hours else f"{m}m{s:02d}s"


def _status(item) -> str:
    colour = "green" if item.passed else "red"
    speed = item.verdict.speedup_vs_eager if item.verdict else None
    extra = f" {speed:.2f}x vs eager" if item.passed and speed else ""
    reason = item.verdict.reasons[0] if item.verdict and item.verdict.reasons and \
        not item.passed else item.note
    tail = f" {output.plain(reason, 100)}" if reason else ""
    return f"[{colour}]{item.status}[/{colour}]{extra}{tail}"


def _finish(result, store, as_json: bool, db: str | None) -> None:
    from ..report import load_report, render_report

    report = load_report(result.bench_id, store)
    if as_json:
        output.echo(json.dumps(report))
        return
    stop = f" (budget reached: {result.stopped_by})" if result.stopped_by else ""
    err.print(f"bench {result.bench_id}: {result.status}{stop}, {result.done}/{result.total} "
              "items", highlight=False)
    output.echo(render_report(report).split("\n## fast_p")[0])
    again = common.with_db(f"warpsmith report {result.bench_id}", db)
    output.echo(f"full report: {again} [--format json] [--out FILE]")
