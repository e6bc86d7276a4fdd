"""A bench's report as plain data (the JSON report; markdown.py renders the same dict), and
the task-by-task comparison of two reports.

A report is built from the store, or read back from a JSON report file, so a run made on
another machine (the H200's, committed under docs/) compares with a local one.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import defaultdict
from pathlib import Path

from ..bench.store import BenchRecord, BenchStore, Item
from ..errors import UsageError
from .metrics import BASELINES, OVERALL, by_level, choose, speedup
from .provenance import environment, mismatches, model_free

SCHEMA_VERSION = 1
DEFINITIONS = "docs/metrics.md"


def build_report(record: BenchRecord, items: list[Item],
                 attempts: list[dict] | None = None) -> dict:
    """attempts: the LLM attempts of the bench's searches (llm: generators), as
    `attempt_rows` reads them, for the search-progress series."""
    s = record.settings
    return {"schema": SCHEMA_VERSION, "definitions": DEFINITIONS,
            "bench": _bench_dict(record, items),
            "metrics": {k: m.as_dict() for k, m in by_level(items, s["samples"]).items()},
            "tasks": task_rows(items),
            "progress": progress(attempts or [], len({i.task for i in items}))}


def _bench_dict(record: BenchRecord, items: list[Item]) -> dict:
    s = record.settings
    return {"id": record.id, "suite": record.suite, "generator": record.generator,
            "samples": s["samples"], "device": s["device"], "profile": s["profile"],
            "budget": {k: v for k, v in s["budget"].items() if v is not None},
            "status": record.status, "items_done": len(items),
            "items_total": record.total_items, "not_loaded": s.get("not_loaded", []),
            "created": record.created, "updated": record.updated,
            "environment": environment(items), "model_free": model_free(record.generator)}


def task_rows(items: list[Item]) -> list[dict]:
    """One row per task: its chosen sample (metrics.choose) and what all K samples got."""
    by_task: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_task[item.task].append(item)
    return [_row(i, sorted(by_task[i.task], key=lambda x: x.sample)) for i in choose(items)]


def _row(chosen: Item, samples: list[Item]) -> dict:
    v = chosen.verdict
    costs = [i.cost_usd for i in samples if i.cost_usd is not None]
    return {"task": chosen.task, "title": chosen.title, "level": chosen.level,
            "status": chosen.status,
            "sample": chosen.sample, "statuses": [i.status for i in samples],
            "speedup_vs_eager": speedup(chosen, "eager"),
            "speedup_vs_compile": speedup(chosen, "compile"),
            "roofline_fraction": v.roofline_fraction if v else None,
            "timed": bool(v and v.timing_measured),
            "cost_usd": sum(costs) if costs else None,
            "candidate": chosen.candidate, "run_id": chosen.run_id,
            "cached": bool(v and v.cached), "reason": _reason(chosen),
            "reasons": list(v.reasons) if v and v.reasons else [_reason(chosen)],
            **_times(v), "source": chosen.source}


def _times(v) -> dict:
    """Median times in µs at the timed shape, the spread of the candidate's and eager's
    (interquartile range, min and max over all timed calls), and the roofline floor; None
    when untimed."""
    by_name = {t.name: t for t in (v.timings if v else ())}
    times = {name: t.median_us for name, t in by_name.items()}
    compiled = [us for name, us in times.items() if name.startswith("compile")]
    return {"time_us": times.get("candidate"), "eager_us": times.get("eager"),
            "compile_us": min(compiled) if compiled else None,
            "compile_max_autotune_us": times.get("compile:max-autotune-no-cudagraphs"),
            "floor_us": v.floor_us if v else None,
            **_spread(by_name.get("candidate"), "time"), **_spread(by_name.get("eager"), "eager")}


def _spread(t, prefix: str) -> dict:
    keys = ("iqr_us", "min_us", "max_us", "calls")
    return {f"{prefix}_{k}": getattr(t, k) if t else None for k in keys}


def _reason(item: Item) -> str:
    v = item.verdict
    if v is not None and v.reasons:
        return v.reasons[0]
    return honest_reason(item.note)


# Benches before 2026-12-01 stored this for a task the library did not cover: it names no
# budget (None) and no budget was reached, so it is shown as what it is, a missing reason.
LEGACY_NOTE = "budget reached (None) before any answer"
NO_REASON = "no candidate; the bench recorded no reason (an older warpsmith named a budget " \
    "here that was never reached)"


def honest_reason(text: str) -> str:
    return NO_REASON if text == LEGACY_NOTE else text


def upgrade(report: dict) -> dict:
    """A JSON report written by an older warpsmith, with the fields added since (environment:
    not recorded) and its misleading reasons replaced."""
    b = report["bench"]
    b.setdefault("environment", {})
    b.setdefault("model_free", model_free(b["generator"]))
    for row in report["tasks"]:
        row["reason"] = honest_reason(row.get("reason") or "")
        row["reasons"] = [honest_reason(r) for r in row.get("reasons") or []]
    return report


def load_report(ref: str, db: Path) -> dict:
    """A bench id in the store, or a JSON report file written by `warpsmith report`."""
    path = Path(ref)
    if path.suffix == ".json" and path.is_file():
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or "bench" not in data or "tasks" not in data:
            raise UsageError(f"{ref} is not a warpsmith bench report (no bench and tasks)")
        return upgrade(data)
    store = BenchStore(db)
    try:
        record = store.bench(ref)
        if record is None:
            raise UsageError(f"no bench {ref!r} in {db}: give a bench id (`warpsmith report` "
                             "lists them) or a JSON report file")
        items = store.items(ref)
        return build_report(record, items, attempt_rows(store.db, items))
    finally:
        store.close()


def attempt_rows(db: sqlite3.Connection, items: list[Item]) -> list[dict]:
    """The attempts of the searches behind the items (llm: generators), oldest first."""
    runs = {i.run_id: i.task for i in items if i.run_id}
    if not runs or not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'attempts'"
                                  ).fetchone():
        return []
    marks = ",".join("?" * len(runs))
    rows = db.execute(f"SELECT run_id, status, cost_usd, speedup_vs_eager, created FROM "
                      f"attempts WHERE run_id IN ({marks}) ORDER BY created", list(runs))
    return [{"task": runs[r], "status": s, "cost_usd": c, "speedup": x, "created": t}
            for r, s, c, x, t in rows]


def progress(attempts: list[dict], tasks: int) -> list[dict]:
    """Search progress, one point per attempt in time order: seconds since the first attempt,
    dollars spent so far, and the geometric mean over the bench's tasks of each task's best
    verified eager speedup so far (a task with none yet counts as 1×); that best is None
    while no attempt has been timed (the CPU)."""
    best: dict[str, float] = {}
    usd, points = 0.0, []
    for a in attempts:
        usd += a["cost_usd"] or 0.0
        if a["status"] == "passed" and a["speedup"] is not None:
            best[a["task"]] = max(best.get(a["task"], 0.0), a["speedup"])
        logs = sum(math.log(v) for v in best.values())
        points.append({"elapsed_s": a["created"] - attempts[0]["created"], "usd": usd,
                       "task": a["task"], "status": a["status"], "speedup": a["speedup"],
                       "best": math.exp(logs / max(tasks, 1)) if best else None})
    return points


SCALARS = ("correctness_rate", "median_roofline_fraction", "cost_per_task_usd")


def compare_reports(a: dict, b: dict) -> dict:
    """B against A: the overall metrics side by side and every task's change, with what
    makes them not comparable (different tasks, devices, GPUs, verifier versions) in
    `warnings`, which every view shows first."""
    ma, mb = a["metrics"][OVERALL], b["metrics"][OVERALL]
    return {"schema": SCHEMA_VERSION, "definitions": DEFINITIONS,
            "a": a["bench"], "b": b["bench"], "warnings": mismatches(a, b),
            "metrics": _unpriced(_metric_pairs(ma, mb), a["bench"], b["bench"]),
            "tasks": _task_pairs(a["tasks"], b["tasks"])}


def _unpriced(rows: list[dict], a: dict, b: dict) -> list[dict]:
    """A model-free bench's cost is not $0 of something: its side reads "no model" (a
    `note`), its value and the difference are None."""
    for r in rows:
        if r["metric"] == "cost_per_task_usd":
            for side, bench in (("a", a), ("b", b)):
                if bench.get("model_free"):
                    r[side], r["delta"], r[f"{side}_note"] = None, None, "no model"
    return rows


def _metric_pairs(ma: dict, mb: dict) -> list[dict]:
    rows = [_pair(name, ma[name], mb[name]) for name in SCALARS]
    for baseline in BASELINES:
        for p in ma["fast_p"][baseline]:
            rows.append(_pair(f"fast_{p} vs {baseline}", ma["fast_p"][baseline][p],
                              mb["fast_p"][baseline].get(p)))
        for name in ("geomean_speedup_correct", "geomean_speedup_all"):
            rows.append(_pair(f"{name} vs {baseline}", ma[name][baseline], mb[name][baseline]))
    return rows


def _pair(name: str, a, b) -> dict:
    delta = b - a if a is not None and b is not None else None
    return {"metric": name, "a": a, "b": b, "delta": delta}


def _task_pairs(rows_a: list[dict], rows_b: list[dict]) -> list[dict]:
    a, b = {r["task"]: r for r in rows_a}, {r["task"]: r for r in rows_b}
    return [_task_pair(name, a.get(name), b.get(name)) for name in sorted(a.keys() | b.keys())]


def _task_pair(name: str, a: dict | None, b: dict | None) -> dict:
    sa, sb = (a or {}).get("speedup_vs_eager"), (b or {}).get("speedup_vs_eager")
    return {"task": name, "status_a": a["status"] if a else None,
            "status_b": b["status"] if b else None, "speedup_a": sa, "speedup_b": sb,
            "ratio": sb / sa if sa and sb else None, "change": change(a, b)}


def change(a: dict | None, b: dict | None) -> str:
    """How task B's result differs from A's, in one word."""
    if a is None or b is None:
        return "only in A" if b is None else "only in B"
    pa, pb = a["status"] == "passed", b["status"] == "passed"
    if pa != pb:
        return "fixed" if pb else "broken"
    sa, sb = a.get("speedup_vs_eager"), b.get("speedup_vs_eager")
    if pa and (sa is None) != (sb is None):  # timed on one side only (a GPU against a CPU)
        return "not compared"
    if pa and sa and sb and abs(sb / sa - 1) > 0.05:  # inside 5%: timing noise, not a change
        return "faster" if sb > sa else "slower"
    return "same"
