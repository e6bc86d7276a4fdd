"""The report as one self-contained HTML page, rendered by jinja2 from templates/ (inline CSS,
inline SVG charts from charts.py, no script, nothing fetched), so it can be mailed, committed
or opened offline. It shows the same dict as the JSON report. Autoescaping is on: every text
from the data stays text (kernel sources hold < and &). Numbers nothing measured read "not
measured", and a chart with nothing to draw says why."""

from __future__ import annotations

import inspect
import re
from datetime import datetime
from functools import cache
from pathlib import Path

from . import charts, provenance
from . import metrics as m
from .markdown import NO_MODEL, _baseline, _money, _pct, _samples, _x, labels

NOT_MEASURED_HERE = "not measured on this device ({device}): speedups need GPU timings"
TEMPLATES = Path(__file__).parent / "templates"


@cache
def _env():
    import jinja2  # only the HTML report needs it (torch requires it anyway)

    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True)


def _render(template: str, **context) -> str:
    from markupsafe import Markup

    for chart in ("speedup", "roofline", "progress", "ratio"):
        if chart in context:  # matplotlib's SVG is markup, and escapes its own text
            context[chart] = {**context[chart], "svg": Markup(context[chart]["svg"])}
    return _env().get_template(template).render(**context)


def render_html(report: dict) -> str:
    b = report["bench"]
    free = b.get("model_free", False)
    return _render("report.html.j2", title=f"warpsmith {b['id']}", b=b, **_header(b),
                   env=provenance.rows(b), env_caption=provenance.caption(b),
                   summary=_summary(report["metrics"], free),
                   ps=list(report["metrics"][m.OVERALL]["fast_p"]["eager"]),
                   fast_p=_fast_p(report["metrics"]), **_speedup(report),
                   roofline=_roofline(report), progress=_progress(report),
                   tasks=[_task(r, free, labels(report["tasks"])) for r in report["tasks"]],
                   definitions=_definitions())


def _header(b: dict) -> dict:
    done = f"{b['items_done']}/{b['items_total']} items"
    return {"budget": ", ".join(f"{k}={v:g}" for k, v in b["budget"].items()) or "unlimited",
            "done": done, "incomplete": b["items_done"] != b["items_total"],
            "started": f"{datetime.fromtimestamp(b['created']):%Y-%m-%d %H:%M}"}


def _summary(metrics: dict, model_free: bool) -> list[dict]:
    rows = []
    for name, g in metrics.items():
        roof = g["median_roofline_fraction"]
        cost = NO_MODEL if model_free else _money(g["cost_per_task_usd"]) + (
            f" (+{g['unpriced_calls']} unpriced calls)" if g["unpriced_calls"] else "")
        rows.append({"name": name, "tasks": g["tasks"], "cells": [
            f"{g['correct']} ({_pct(g['correctness_rate'])})",
            _x(g["geomean_speedup_correct"]["eager"]), _x(g["geomean_speedup_all"]["eager"]),
            _x(g["geomean_speedup_all"]["compile"]),
            _pct(roof) + (f" ({g['roofline_tasks']} tasks)" if roof else ""), cost]})
    return rows


def _fast_p(metrics: dict) -> list[dict]:
    return [{"baseline": _baseline(baseline), "group": name,
             "cells": [_pct(v) for v in g["fast_p"][baseline].values()]}
            for baseline in m.BASELINES for name, g in metrics.items()]


def _empty(text: str, name: str) -> dict:
    return {"svg": charts.message(name, text), "empty": True}


def _speedup(report: dict) -> dict:
    rows = [r for r in report["tasks"]
            if r["status"] == "passed" and r["speedup_vs_eager"] is not None]
    failed = sum(r["status"] != "passed" for r in report["tasks"])
    left_out = f" {failed} task(s) that did not pass are left out (they count as not fast)." \
        if failed else ""
    if not rows:
        passed = any(r["status"] == "passed" for r in report["tasks"])
        return {"left_out": left_out, "speedup": _empty(
            NOT_MEASURED_HERE.format(device=report["bench"]["device"]) if passed
            else "no task passed: no speedup to plot", "speedup")}
    rows.sort(key=lambda r: r["speedup_vs_eager"])
    label = labels(report["tasks"])
    bars = [charts.Bar(label[r["task"]], r["speedup_vs_eager"], r["speedup_vs_eager"] <= 1,
                       _href(label[r["task"]]), charts.speedup_text(r["speedup_vs_eager"]))
            for r in rows]
    svg = charts.bars("speedup", bars, ref=1.0, ref_label="1× (as fast as eager)",
                      x_label="speedup against eager PyTorch (log scale)", log=True)
    return {"left_out": left_out, "speedup": {"svg": svg, "empty": False}}


def _roofline(report: dict) -> dict:
    rows = [r for r in report["tasks"]
            if r["status"] == "passed" and r["roofline_fraction"] is not None]
    if not rows:
        timed = any(r["timed"] for r in report["tasks"])
        return _empty("no task has a roofline floor (ops without a FLOP rule)" if timed
                      else f"not measured on this device ({report['bench']['device']}): "
                           "the roofline needs GPU timings", "roofline")
    rows.sort(key=lambda r: r["roofline_fraction"])
    label = labels(report["tasks"])
    bars = [charts.Bar(label[r["task"]], r["roofline_fraction"], False,
                       _href(label[r["task"]]),
                       f"{r['roofline_fraction']:.0%}") for r in rows]
    svg = charts.bars("roofline", bars, ref=0.0, line=1.0, ref_label="the floor (100%)",
                      x_label="floor time / kernel time", log=False,
                      x_max=max(1.0, *(b.value for b in bars)))
    return {"svg": svg, "empty": False}


def _progress(report: dict) -> dict:
    points = report.get("progress") or []
    if not points:
        kind = report["bench"]["generator"].split(":", 1)[0]
        return _empty(f"no search attempts: a {kind}: generator makes no LLM attempts",
                      "progress")
    if not any(p["best"] is not None for p in points):
        return _empty(NOT_MEASURED_HERE.format(device=report["bench"]["device"]), "progress")
    by_usd = any(p["usd"] for p in points)
    key, label = ("usd", "cumulative spend ($)") if by_usd else \
        ("elapsed_s", "wall time since the first attempt (s)")
    xy = [(p[key], p["best"] or 1.0) for p in points]
    return {"svg": charts.progress("progress", xy, x_label=label, x_money=by_usd,
                                   y_label="geomean best ×eager"), "empty": False}


def _href(task: str) -> str:
    return f"#task-{_slug(task)}"


def _slug(task: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", task)


def _us(value) -> str:
    return "not measured" if value is None else f"{value:.3g}"


def _task(r: dict, model_free: bool, label: dict[str, str]) -> dict:
    passed = r["status"] == "passed"
    reason = r["reason"] if len(r["reason"]) <= 100 else r["reason"][:100] + "…"
    return {"task": label[r["task"]], "slug": _slug(label[r["task"]]), "status": r["status"],
            "samples": _samples(r), "reason": reason,
            "cells": (_numbers(r) if passed else ["–"] * 10)
            + [NO_MODEL if model_free else _money(r["cost_usd"])],
            "reasons": r.get("reasons") or ([r["reason"]] if r["reason"] else []),
            "source": r.get("source"), "candidate": r["candidate"], "run_id": r.get("run_id")}


def _numbers(r: dict) -> list[str]:
    """×eager, ×compile, the candidate's time and spread, eager's, the floor, the roofline."""
    low, high = r.get("time_min_us"), r.get("time_max_us")
    eager = _us(r.get("eager_us"))
    if r.get("eager_iqr_us") is not None:
        eager += f" ({r['eager_iqr_us']:.2g})"
    return [_x(r["speedup_vs_eager"]), _x(r["speedup_vs_compile"]), _us(r.get("time_us")),
            _spread_us(r, r.get("time_iqr_us")),
            f"{low:.3g}–{high:.3g}" if low is not None and high is not None else
            _spread_us(r, None), _spread_us(r, r.get("time_calls"), "{:d}"), eager,
            _us(r.get("floor_us")), _roof(r)]


def _spread_us(r: dict, value, fmt: str = "{:.2g}") -> str:
    if value is not None:
        return fmt.format(value)
    # timed, but by a warpsmith that did not keep the spread in its report
    return "not recorded" if r.get("time_us") is not None else "not measured"


def _roof(r: dict) -> str:
    if r["roofline_fraction"] is None:
        return "no floor" if r["timed"] else "not measured"
    return _pct(r["roofline_fraction"])


def _definitions() -> list[tuple[str, str]]:
    return [(f.__name__, " ".join(inspect.getdoc(f).split())) for f in m.DEFINITIONS]


def render_comparison_html(cmp: dict) -> str:
    a, b = cmp["a"], cmp["b"]
    env = [(label, va, vb) for (label, va), (_, vb) in
           zip(provenance.rows(a), provenance.rows(b), strict=True)]
    return _render("comparison.html.j2", title=f"warpsmith {b['id']} vs {a['id']}", a=a, b=b,
                   warnings=cmp.get("warnings", []), env=env,
                   metrics=[_cmp_metric(r) for r in cmp["metrics"]], ratio=_ratio(cmp),
                   tasks=[_cmp_task(r, labels(cmp["tasks"])) for r in cmp["tasks"]])


def _cmp_metric(r: dict) -> dict:
    fmt = _x if "geomean" in r["metric"] else (_money if "cost" in r["metric"] else _pct)
    delta = "–" if r["delta"] is None else f"{r['delta']:+.3g}"
    return {"metric": r["metric"],
            "cells": [r.get("a_note") or fmt(r["a"]), r.get("b_note") or fmt(r["b"]), delta]}


def _ratio(cmp: dict) -> dict:
    rows = sorted((r for r in cmp["tasks"] if r["ratio"] is not None), key=lambda r: r["ratio"])
    if not rows:
        return _empty("not measured on these devices: no task has a speedup in both runs",
                      "ratio")
    label = labels(cmp["tasks"])
    bars = [charts.Bar(label[r["task"]], r["ratio"], r["ratio"] < 1,
                       f"#cmp-{_slug(label[r['task']])}",
                       f"{r['ratio']:.3g}× ({r['change']})") for r in rows]
    return {"svg": charts.bars("ratio", bars, ref=1.0, ref_label="1× (no change)",
                               x_label="B speedup / A speedup (log scale)", log=True),
            "empty": False}


def _cmp_task(r: dict, label: dict[str, str]) -> dict:
    return {"task": label[r["task"]], "slug": _slug(label[r["task"]]),
            "status_a": r["status_a"] or "–",
            "status_b": r["status_b"] or "–", "change": r["change"],
            "cells": [_x(r["speedup_a"]), _x(r["speedup_b"]), _x(r["ratio"])]}
