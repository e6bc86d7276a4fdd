"""`warpsmith optimize TASK --model SPEC --strategy NAME`."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import click

from ..config import PROFILES, writable_store
from ..errors import UsageError
from ..executors import check_spec
from ..store.runs import Attempt
from . import common, output
from .common import STRATEGY_NAMES

err = output.err_console()


@click.command("optimize")
@click.argument("task", required=False)
@click.option("--model", help="openai:MODEL, anthropic:MODEL, "
              "openai-compatible:BASE_URL#MODEL (vLLM, SGLang, Ollama, …) or hf:PATH. "
              "Without it: the offline kernel library (no LLM, no key).")
@click.option("--strategy", type=click.Choice(STRATEGY_NAMES), default=None,
              help="[default: refine with --model, library without]")
@click.option("--budget", default=None, help="Limits, e.g. calls=20,usd=2,tokens=500k,wall=30m,"
              "gpu=10m; the run stops cleanly at the first one reached.")
@click.option("--samples", type=int, default=4, show_default=True,
              help="best-of-n: samples drawn; refine, judge: independent chains; evolve: "
                   "children per generation.")
@click.option("--depth", type=int, default=4, show_default=True,
              help="refine, judge: rounds per chain; evolve: generations; library: knob-tuner "
                   "rounds (0: none).")
@click.option("--language", type=click.Choice(["triton", "cuda"]), default="triton",
              show_default=True)
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default=None,
              help="cuda when a GPU is present; cpu verifies with the Triton interpreter.")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), default="quick",
              show_default=True)
@click.option("--temperature", type=float, default=None)
@click.option("--out", type=click.Path(dir_okay=False), default=None, callback=common.out_file,
              help="Where to write the best verified candidate [default: ./TASK_best.py; on "
                   "--resume, where the run wrote it].")
@click.option("--executor", default=None, metavar="SPEC",
              help="Where verifications run: inline (one at a time, here), local (a worker "
                   "per GPU of this machine), local:N (N per GPU: they check at once and "
                   "are timed one at a time), ray or ray://ADDRESS (an actor per GPU of a "
                   "Ray cluster). [default: inline; on --resume, the run's own]")
@click.option("--judge-model", default=None, metavar="SPEC",
              help="--strategy judge: the judge's model (same forms as --model) "
                   "[default: the coder's].")
@click.option("--start", type=click.Path(exists=True, dir_okay=False), default=None,
              callback=common.source_option,
              help="--strategy tune: the candidate file to tune (no model needed).")
@click.option("--no-tune", is_flag=True, help="Skip the generic tuner that otherwise runs on "
              "the best verified kernel at the end (GPU only; it varies block sizes and warps).")
@click.option("--resume", "resume_id", default=None, metavar="RUN_ID",
              help="Continue run RUN_ID: recorded attempts are replayed, not paid again. "
                   "Takes --budget, --executor, --out, --db, --json; the rest are the run's.")
@common.db_option("SQLite store of the run, its attempts and verdicts")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object at the end.")
@click.pass_context
@output.results_only
def optimize_command(ctx, task, model, strategy, budget, samples, depth, language, device,
                     profile, temperature, out, executor, judge_model, start, no_tune,
                     resume_id, db, as_json) -> int:
    """Find a verified kernel for TASK: from the offline kernel library (no --model), or by
    asking a model and verifying every answer; keep the best.

    \b
    Exit codes: 0 a verified candidate was found, 1 none was, 2 bad usage, 130 Ctrl-C
    (resume it).
    Examples (from a clone's root; RUN_ID: an id, as `warpsmith runs list` shows them):
      warpsmith optimize level1/softmax
      warpsmith optimize level1/relu --model openai:gpt-4.1 --strategy refine --budget usd=1
      warpsmith optimize level1/relu --model openai-compatible:http://localhost:8000/v1#qwen
      warpsmith optimize level1/relu --model openai:gpt-4.1 --samples 8 --executor local
      warpsmith optimize level1/relu --strategy tune --start src/warpsmith/examples/relu_triton.py
      warpsmith optimize --resume RUN_ID --budget calls=40
    """
    if resume_id:  # the rest are the run's own settings, stored with it
        common.resume_only(ctx, "budget", "executor", "out", "db", "as_json")
    else:
        _task(task)  # before torch is imported, and before any note
    store = writable_store(db)  # before any work: a bad folder is one line, nothing lost
    if not resume_id:
        common.writable_run(out, model)
    from ..search import optimize, parse_budget, resume

    limits = parse_budget(budget) if budget else None
    if executor is not None:
        check_spec(executor)
    common.hide_store(db)
    progress = _Progress(as_json)
    try:
        if resume_id:
            result = resume(resume_id, store, on_attempt=progress.attempt, budget=limits,
                            executor=executor, out=Path(out) if out else None)
        else:
            settings = dataclasses.replace(_settings(  # usage errors before any note
                language, device, profile, temperature, samples, depth), start=start,
                tune=not no_tune, judge_model=judge_model)
            model, strategy = _model(model, strategy)
            _price_note(model, limits)
            result = optimize(task, model, strategy, settings, limits or
                parse_budget(None), out, store, on_attempt=progress.attempt,
                on_start=progress.start, executor=executor)
    except KeyboardInterrupt:
        return common.interrupted("warpsmith optimize", progress.run_id, db)
    _report(result, as_json, db, resumed=bool(resume_id))
    return 0 if result.best else 1


def _task(task: str | None) -> str:
    if not task:
        raise UsageError("give a TASK (e.g. level1/relu) or --resume RUN_ID")
    return task


def _model(model: str | None, strategy: str | None) -> tuple[str, str]:
    from ..search.registry import LIBRARY, model_and_strategy

    model, strategy = model_and_strategy(model, strategy, "--model SPEC", "--strategy")
    if model == LIBRARY and strategy == LIBRARY:
        err.print("no --model: the offline kernel library (no LLM, no API key)",
                  highlight=False)
    return model, strategy


def _price_note(model: str, limits) -> None:
    """A dollar limit is only as good as the price behind it: say how old it is, or that
    there is none (the run still starts; the summary counts unpriced calls)."""
    from ..config import llm_prices_path
    from ..llm.pricing import unpriced_note
    from ..search.registry import LIBRARY

    note = unpriced_note(model, llm_prices_path()) \
        if limits is not None and limits.usd and model != LIBRARY else None
    if note:
        err.print(note, highlight=False)


def _settings(language, device, profile, temperature, samples, depth):
    from ..search import Settings

    return Settings(language=language, device=common.device(device), profile=profile,
                    temperature=temperature, samples=samples, depth=depth)


class _Progress:
    """One line per attempt on stderr: what it got, the best so far, the spend."""

    def __init__(self, quiet: bool):
        self.quiet, self.run_id, self.best = quiet, None, None
        self.usd, self.calls = 0.0, 0

    def start(self, run_id: str) -> None:
        self.run_id = run_id
        if not self.quiet:
            err.print(f"run {run_id}", highlight=False)

    def attempt(self, a: Attempt) -> None:
        from ..search.context import better

        self.run_id = a.run_id
        # the run's calls, as its summary and `runs show` count them: a replayed attempt's
        # call was paid when it was made
        self.calls += bool(a.prompt) and not a.llm_cached
        self.usd += (a.cost_usd or 0.0) if not a.llm_cached else 0.0
        if better(a, self.best):  # the run's own rule, so this line agrees with the result
            self.best = a
        if not self.quiet:
            spent = f" | calls {self.calls}, ${self.usd:.4f}" if self.calls else ""
            # #N: the attempt's number in its run, as the summary and `runs show` give it
            err.print(f"#{a.number} chain {a.chain} round {a.depth}: {_outcome(a)}"
                      f"{' (replayed)' if a.replayed else ''} | best: {_best(self.best)}"
                      f"{spent}", highlight=False)


def _count(attempts: int) -> str:
    return f"{attempts} attempt{'' if attempts == 1 else 's'}"


def _outcome(a: Attempt) -> str:
    if a.verdict is None:
        return f"[red]{a.status}[/red] {output.plain(a.error or '', 190)}"
    v = a.verdict
    if v.passed:
        return f"[green]passed[/green] ({_speed(v)})"
    return f"[red]{v.status}[/red] {output.plain((v.reasons or ('',))[0], 120)}"


def _best(a: Attempt | None) -> str:
    return "none yet" if a is None else f"#{a.number} passed ({_speed(a.verdict)})"


def _speed(v) -> str:
    return f"{v.speedup_vs_eager:.2f}x vs eager" if v.speedup_vs_eager else "not timed"


def _report(result, as_json: bool, db: str | None, resumed: bool = False) -> None:
    best = result.best
    if as_json:
        output.echo(json.dumps(result.to_dict()))
        return
    stop = f"; budget reached ({result.stopped_by})" if result.stopped_by else ""
    err.print(f"run {result.run_id}: {result.status}{stop}; {_count(result.attempts)}; "
              f"{result.spend_text()}", highlight=False)
    if result.note:
        err.print(output.plain(result.note), highlight=False)
    from ..search.scheduler import describe as describe_lanes

    if result.lanes and (lanes := describe_lanes(result.lanes, resumed)):
        err.print(lanes, highlight=False)
    if result.best_path:
        output.echo(f"best verified candidate: {result.best_path} (attempt #{best.number}, "
                    f"{_speed(best.verdict)})")
    else:
        show = common.with_db(f"warpsmith runs show {result.run_id}", db)
        output.echo(f"no verified candidate; see `{show}` for what each attempt got")
