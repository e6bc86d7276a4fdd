"""Markdown views of the report dicts that tables.py builds: what a person reads, holding
the same numbers as the JSON. A None number prints as "not measured" (a speedup on the CPU)
or "n/a" (a cost no one paid), never as 0."""

from __future__ import annotations

from datetime import datetime

from ..types import readable_task_name
from . import provenance
from .metrics import BASELINES, OVERALL

NOT_MEASURED = "not measured"


def render_report(report: dict) -> str:
    b = report["bench"]
    free = b.get("model_free", False)
    parts = [f"# warpsmith bench `{b['id']}`", _header(b), _environment(b),
             _summary(report["metrics"], free), _fast_p(report["metrics"]),
             _tasks(report["tasks"], free)]
    if b["not_loaded"]:
        parts.append("## Files not loaded\n\n" + "\n".join(f"- {e}" for e in b["not_loaded"]))
    return "\n\n".join(parts) + "\n"


def _header(b: dict) -> str:
    budget = ", ".join(f"{k}={v:g}" for k, v in b["budget"].items()) or "unlimited"
    done = f"{b['items_done']}/{b['items_total']} items"
    incomplete = "" if b["items_done"] == b["items_total"] else (
        f"\n\n**Incomplete** ({done}): numbers cover the items done so far; continue with "
        f"`warpsmith bench --resume {b['id']}`.")
    return (f"suite `{b['suite']}` · generator `{b['generator']}` · K = {b['samples']} "
            f"(each task's best verified sample of {b['samples']}) · device {b['device']} · "
            f"profile {b['profile']} · budget {budget} · status {b['status']} · {done} · "
            f"started {datetime.fromtimestamp(b['created']):%Y-%m-%d %H:%M}\n\n"
            "Every number is defined in warpsmith's docs/metrics.md; speedups are "
            f"strict (fast_1 needs speedup > 1) and failures count as not fast, or as 1× in "
            f"the all-task geometric mean.{incomplete}")


def _environment(b: dict) -> str:
    rows = ["| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in provenance.rows(b)]
    return f"## Environment\n\n{provenance.caption(b)}\n\n" + "\n".join(rows)


def _summary(metrics: dict, model_free: bool) -> str:
    head = ("| group | tasks | correct | fast_1 eager | fast_1 compile | geomean eager "
            "(correct) | geomean eager (all, fail = 1×) | geomean compile (all) | "
            "median roofline | cost/task $ |")
    rows = [head, "|" + "---|" * 10]
    for name, m in metrics.items():
        rows.append(f"| {name} | {m['tasks']} | {m['correct']} ({_pct(m['correctness_rate'])})"
                    f" | {_pct(m['fast_p']['eager']['1'])} | {_pct(m['fast_p']['compile']['1'])}"
                    f" | {_x(m['geomean_speedup_correct']['eager'])}"
                    f" | {_x(m['geomean_speedup_all']['eager'])}"
                    f" | {_x(m['geomean_speedup_all']['compile'])}"
                    f" | {_roofline(m)} | {_usd(m, model_free)} |")
    return "## Summary\n\n" + "\n".join(rows)


def _fast_p(metrics: dict) -> str:
    ps = list(metrics[OVERALL]["fast_p"]["eager"])
    rows = ["| baseline | group | " + " | ".join(f"fast_{p}" for p in ps) + " |",
            "|" + "---|" * (len(ps) + 2)]
    for baseline in BASELINES:
        for name, m in metrics.items():
            values = m["fast_p"][baseline]
            rows.append(f"| {_baseline(baseline)} | {name} | "
                        + " | ".join(_pct(values[p]) for p in ps) + " |")
    return "## fast_p\n\nThe share of tasks whose chosen kernel passed and is more than p× " \
           "as fast as the baseline.\n\n" + "\n".join(rows)


def labels(rows: list[dict]) -> dict[str, str]:
    """Each row's task as people read it: without the digest a folder's task is stored
    with (relu@1a2b3c4d -> relu), kept where two rows would then read the same (two
    folders' relu compared)."""
    names = {r["task"] for r in rows}
    short = [readable_task_name(n) for n in names]
    return {n: n if short.count(readable_task_name(n)) > 1 else readable_task_name(n)
            for n in names}


def _tasks(rows: list[dict], model_free: bool) -> str:
    lines = ["| task | status | samples | ×eager | ×compile | roofline | time µs (IQR; "
             "min–max; calls) | eager µs (IQR) | cost $ | kernel | reason |", "|" + "---|" * 11]
    label = labels(rows)
    for r in rows:
        kernel = f"[{_name(r['candidate'])}]({r['candidate']})" if r["candidate"] else "–"
        cost = NO_MODEL if model_free else _money(r["cost_usd"])
        lines.append(f"| {label[r['task']]} | {r['status']} | {_samples(r)} | {_speeds(r)} | "
                     f"{spread(r, 'time')} | {spread(r, 'eager', full=False)} | {cost} | "
                     f"{kernel} | {_cell(r['reason'])} |")
    return "## Tasks\n\n" + "\n".join(lines)


def render_comparison(cmp: dict) -> str:
    a, b = cmp["a"], cmp["b"]
    lines = [f"# `{b['id']}` (B) against `{a['id']}` (A)", "", *_warnings(cmp),
             f"A: `{a['generator']}` on {a['device']}, K = {a['samples']}, {a['suite']}  ",
             f"B: `{b['generator']}` on {b['device']}, K = {b['samples']}, {b['suite']}", "",
             "## Metrics (overall)", "", "| metric | A | B | B − A |", "|---|---|---|---|"]
    for r in cmp["metrics"]:
        fmt = _x if "geomean" in r["metric"] else (_money if "cost" in r["metric"] else _pct)
        delta = "–" if r["delta"] is None else f"{r['delta']:+.3g}"
        a_cell, b_cell = r.get("a_note") or fmt(r["a"]), r.get("b_note") or fmt(r["b"])
        lines.append(f"| {r['metric']} | {a_cell} | {b_cell} | {delta} |")
    lines += ["", "## Tasks", "", "| task | A | B | ×eager A | ×eager B | B / A | change |",
              "|---|---|---|---|---|---|---|"]
    label = labels(cmp["tasks"])
    for r in cmp["tasks"]:
        lines.append(f"| {label[r['task']]} | {r['status_a'] or '–'} | {r['status_b'] or '–'} | "
                     f"{_x(r['speedup_a'])} | {_x(r['speedup_b'])} | {_x(r['ratio'])} | "
                     f"{r['change']} |")
    return "\n".join(lines) + "\n"


def _warnings(cmp: dict) -> list[str]:
    if not cmp.get("warnings"):
        return []
    return [f"> **{NOT_COMPARABLE}**", ">"] + [f"> - {w}" for w in cmp["warnings"]] + [""]


NOT_COMPARABLE = "Warning: these two benches are not comparable as they stand"


def spread(r: dict, prefix: str, full: bool = True) -> str:
    """A median time with its spread over the timed calls, or "not measured"."""
    median = r.get("time_us" if prefix == "time" else "eager_us")
    iqr = r.get(f"{prefix}_iqr_us")
    if median is None:
        return NOT_MEASURED
    if iqr is None:  # a report written before the spread was kept
        return f"{median:.3g} (spread not recorded)"
    text = f"{median:.3g} (IQR {iqr:.2g}"
    if full:
        text += f"; {r[f'{prefix}_min_us']:.3g}–{r[f'{prefix}_max_us']:.3g}; " \
                f"{r[f'{prefix}_calls']}"
    return text + ")"


def _speeds(r: dict) -> str:
    """A kernel that failed has no speed to show ("–"); one that passed untimed was not
    measured."""
    if r["status"] != "passed":
        return "– | – | –"
    floor = "no floor" if r["timed"] and r["roofline_fraction"] is None else \
        _pct(r["roofline_fraction"])
    return f"{_x(r['speedup_vs_eager'])} | {_x(r['speedup_vs_compile'])} | {floor}"


def _baseline(name: str) -> str:
    return "eager PyTorch" if name == "eager" else "torch.compile"


def _samples(r: dict) -> str:
    passed = sum(s == "passed" for s in r["statuses"])
    return f"{passed}/{len(r['statuses'])} passed, #{r['sample']} chosen"


def _pct(value: float | None) -> str:
    return NOT_MEASURED if value is None else f"{value:.0%}"


def _x(value: float | None) -> str:
    return NOT_MEASURED if value is None else f"{value:.2f}×"


def _roofline(m: dict) -> str:
    value = m["median_roofline_fraction"]
    return NOT_MEASURED if value is None else f"{value:.0%} ({m['roofline_tasks']} tasks)"


NO_MODEL = "no model"


def _usd(m: dict, model_free: bool = False) -> str:
    if model_free:  # nothing was bought: "$0.0000 + 1 unpriced" would read as a bill
        return NO_MODEL
    value = _money(m["cost_per_task_usd"])
    return value + (f" (+{m['unpriced_calls']} unpriced calls)" if m["unpriced_calls"] else "")


def _money(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _cell(text: str) -> str:
    """One table cell: no newlines or pipes, and short."""
    text = " ".join(text.split()).replace("|", "\\|")
    return text[:120] + ("…" if len(text) > 120 else "")
