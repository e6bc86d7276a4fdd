"""`warpsmith runs list` and `warpsmith runs show RUN_ID`: what a search did and what it cost."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime

import click
from rich.table import Table

from ..config import db_path
from ..errors import UsageError
from ..store import verdict_to_dict
from ..store.runs import Attempt, RunStore
from . import common, output

DB = common.db_option()


@click.group("runs")
def runs_group() -> None:
    """Search runs made by `warpsmith optimize`."""


@runs_group.command("list")
@DB
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@output.results_only
def list_command(db, as_json) -> int:
    """The most recent runs, newest first."""
    store = RunStore(db or db_path())
    runs = [(r, store.attempts(r.id)) for r in store.runs()]
    store.close()
    if as_json:
        output.echo(json.dumps({"runs": [_run_dict(r, _totals(a), a) for r, a in runs]}))
        return 0
    table = Table("run", "task", "model", "strategy", "status", "attempts", "passed", "cost")
    table.columns[0].no_wrap = True  # ids are copied into --resume and `runs show`
    for r, t in ((r, _totals(a)) for r, a in runs):
        table.add_row(r.id, r.task, r.model, r.strategy, r.status, str(t["attempts"]),
                      str(t["passed"]), _cost(t, r.model))
    output.console().print(table)
    return 0


@runs_group.command("show")
@click.argument("run_id")
@DB
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@output.results_only
def show_command(run_id, db, as_json) -> int:
    """Every attempt of RUN_ID: lineage, verdict, tokens and cost."""
    store = RunStore(db or db_path())
    record, attempts = store.run(run_id), store.attempts(run_id)
    store.close()
    if record is None:
        raise UsageError(f"no run {run_id!r} (see `warpsmith runs list`)")
    if as_json:
        output.echo(json.dumps(_run_dict(record, _totals(attempts), attempts) | {
            "attempts": [_attempt_dict(a) for a in attempts]}))
        return 0
    t, out = _totals(attempts), output.console()
    out.print(f"run {record.id}: {record.task} with {record.model} ({record.strategy}), "
              f"{record.status}; started {datetime.fromtimestamp(record.created):%Y-%m-%d %H:%M}",
              highlight=False)
    judged = f" (and {t['judge_calls']} judge calls)" if t["judge_calls"] else ""
    plural = "" if t["attempts"] == 1 else "s"
    out.print(f"{t['attempts']} attempt{plural}{judged}, {t['passed']} passed; "
              f"tokens {t['tokens']} paid; "
              f"cost {_cost(t, record.model)}; best: {record.best_path or 'none'}", highlight=False)
    table = Table("#", "parent", "chain", "round", "status", "speedup", "tokens", "cost $",
                  "reason")
    number = {a.id: a.number for a in attempts}  # a parent by its number in the run, too
    for a in attempts:
        v = a.verdict
        parent = f"#{number[a.parent_id]}" if a.parent_id in number else "-"
        table.add_row(f"#{a.number}", parent, str(a.chain), str(a.depth), a.status,
                      f"{v.speedup_vs_eager:.2f}" if v and v.speedup_vs_eager else "-",
                      str(_tokens(a)), _usd(a.cost_usd), output.plain(_reason(a)))
    out.print(table)
    return 0


def _reason(a: Attempt) -> str:
    """An evolve child's idea with its predicted and measured gain, else the verdict's first
    reason or the call's error."""
    if a.idea:
        gains = [f"{name} {g:.2f}x" for name, g in (("predicted", a.predicted_gain),
                                                    ("measured", a.measured_gain)) if g]
        return f"{a.idea[:50]}" + (f" ({', '.join(gains)})" if gains else "")
    v = a.verdict  # whole: a table on a pipe is as wide as it needs, a terminal folds it
    return " ".join((v.reasons[0] if v and v.reasons else a.error or "").split())[:300]


def _tokens(a: Attempt) -> int:
    return a.usage.get("input_tokens", 0) + a.usage.get("output_tokens", 0)


def _totals(attempts: list[Attempt]) -> dict:
    from ..search.judge import is_advice  # imports torch: only once there is a run to show

    # A call is an attempt a model was asked for (it has a prompt): the library's and the
    # tuner's kernels cost nothing and are no unpriced call
    paid = [a for a in attempts if a.prompt and not a.llm_cached]
    judged = sum(map(is_advice, attempts))
    return {"attempts": len(attempts) - judged, "judge_calls": judged,
            "passed": sum(a.passed for a in attempts),
            "llm_calls": len(paid), "tokens": sum(_tokens(a) for a in paid),
            "cost_usd": sum(a.cost_usd or 0.0 for a in paid),
            "unpriced_calls": sum(a.cost_usd is None for a in paid)}


def _run_dict(record, totals: dict, attempts: list[Attempt]) -> dict:
    """A run as JSON: `best_attempt` is the attempt's number in its run, as `optimize --json`,
    the progress lines and the table give it (the store keeps the id, which counts across
    every run in the file: `best_attempt_id`, like an attempt's `id` and `parent_id`)."""
    number = {a.id: a.number for a in attempts}
    return dataclasses.asdict(record) | {"best_attempt": number.get(record.best_attempt),
                                         "best_attempt_id": record.best_attempt} | totals


def _attempt_dict(a: Attempt) -> dict:
    data = dataclasses.asdict(a)
    data["verdict"] = verdict_to_dict(a.verdict) if a.verdict else None
    return data


def _cost(totals: dict, model: str) -> str:
    """A sum that leaves out calls without a known price says so; a run that asked no
    model (the library's) says that."""
    if model == "library":  # search.registry.LIBRARY, named here: the CLI starts without it
        return "no model"
    unknown = totals["unpriced_calls"]
    return f"${_usd(totals['cost_usd'])}" + (f" + {unknown} unpriced" if unknown else "")


def _usd(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"
