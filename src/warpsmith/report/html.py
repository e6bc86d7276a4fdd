"""The report as one self-contained HTML page: inline CSS, inline SVG charts (svg.py), no
script and nothing fetched, so it can be mailed, committed or opened offline. It shows the
same dict as the JSON report; every text from the data is escaped (kernel sources hold < and &).
Numbers nothing measured read "not measured", and a chart with nothing to draw says why."""

from __future__ import annotations

import inspect
import re
from datetime import datetime
from html import escape

from . import metrics as m
from .markdown import _baseline, _money, _pct, _samples, _x
from .svg import LEFT, RIGHT, Bar, Scale, W, bar_chart, empty, line_chart, log_scale

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1100px;
 padding:0 1em;color:#1d232b}
h1{font-size:1.5em}h2{margin-top:1.8em;border-bottom:1px solid #dde;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #dde;padding:.25em .55em;
 text-align:right}th:first-child,td:first-child,td.text{text-align:left}th{background:#f3f5f8}
.meta{color:#556}.passed{color:#17733a}.failed{color:#b3261e}.nm{color:#889;font-style:italic}
svg.plot,svg.empty{display:block;margin:.5em 0;background:#fcfcfd}
svg .bar{fill:#4a78c2}svg .bar.slow{fill:#d08a3a}svg .bar.fail{fill:#c55}
svg .ref{stroke:#b3261e;stroke-dasharray:5 4;stroke-width:1.4}
svg .grid{stroke:#e6e8ee}svg .axis{stroke:#889}svg .tick{font-size:11px;fill:#556}
svg .ref-label{font-size:11px;fill:#8a1c16;paint-order:stroke;stroke:#fff;stroke-width:3px}
svg .axis-label{font-size:12px;fill:#334}svg .series{fill:none;stroke:#4a78c2;stroke-width:2}
svg .point{fill:#1d4f9c}svg .frame{fill:none;stroke:#dde}svg .empty-msg{font-size:15px;fill:#778}
details{border:1px solid #dde;border-radius:4px;margin:.4em 0;padding:.3em .7em}
details:has(:target){border-color:#4a78c2}summary{cursor:pointer;font-weight:600}
pre{background:#f6f8fa;padding:.7em;overflow:auto;font-size:12px;max-height:36em}
.caption{color:#556;max-width:60em}
"""

NOT_MEASURED_HERE = "not measured on this device ({device}): speedups need GPU timings"


def render_html(report: dict) -> str:
    b = report["bench"]
    body = [f"<h1>warpsmith bench <code>{escape(b['id'])}</code></h1>", _header(b),
            _summary(report["metrics"]), _fast_p(report["metrics"]),
            _speedup_plot(report), _roofline_plot(report), _progress_plot(report),
            _task_table(report["tasks"]), _task_details(report["tasks"]), _definitions()]
    if b["not_loaded"]:
        body.append("<h2>Files not loaded</h2><ul>" + "".join(
            f"<li>{escape(e)}</li>" for e in b["not_loaded"]) + "</ul>")
    return _page(f"warpsmith {b['id']}", body)


def _page(title: str, body: list[str]) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _header(b: dict) -> str:
    budget = ", ".join(f"{k}={v:g}" for k, v in b["budget"].items()) or "unlimited"
    done = f"{b['items_done']}/{b['items_total']} items"
    parts = [f"suite <code>{escape(b['suite'])}</code>",
             f"generator <code>{escape(b['generator'])}</code>",
             f"K = {b['samples']} (each task's best verified sample)",
             f"device {escape(b['device'])}", f"profile {escape(b['profile'])}",
             f"budget {escape(budget)}", f"status {escape(b['status'])}", done,
             f"started {datetime.fromtimestamp(b['created']):%Y-%m-%d %H:%M}"]
    text = f'<p class="meta">{" · ".join(parts)}</p>'
    if b["items_done"] != b["items_total"]:
        text += (f"<p><strong>Incomplete</strong> ({done}): numbers cover the items done so "
                 f"far; continue with <code>warpsmith bench --resume {escape(b['id'])}</code>."
                 "</p>")
    return text + ('<p class="caption">Every number is defined in warpsmith\'s docs/metrics.md '
                   '(repeated under <a href="#definitions">Definitions</a>): speedups are '
                   "strict (fast_1 needs speedup &gt; 1), failures count as not fast, or as 1× "
                   "in the all-task geometric mean.</p>")


def _cell(text: str, css: str = "") -> str:
    """A number cell: "not measured" greyed, so no one reads it as a zero."""
    cls = "nm" if text in ("not measured", "n/a") else css
    return f'<td class="{cls}">{escape(text)}</td>' if cls else f"<td>{escape(text)}</td>"


def _def(name: str, text: str) -> str:
    return f'<a href="#def-{name}">{escape(text)}</a>'


def _summary(metrics: dict) -> str:
    head = ["group", "tasks", _def("correctness_rate", "correct"),
            _def("geomean_speedup_correct", "geomean ×eager (correct)"),
            _def("geomean_speedup_all", "geomean ×eager (all, fail = 1×)"),
            _def("geomean_speedup_all", "geomean ×compile (all)"),
            _def("median_roofline_fraction", "median roofline"),
            _def("cost_per_task", "cost/task $")]
    rows = []
    for name, g in metrics.items():
        roof = g["median_roofline_fraction"]
        rows.append(f'<tr><td class="text">{escape(name)}</td><td>{g["tasks"]}</td>'
                    + _cell(f"{g['correct']} ({_pct(g['correctness_rate'])})")
                    + _cell(_x(g["geomean_speedup_correct"]["eager"]))
                    + _cell(_x(g["geomean_speedup_all"]["eager"]))
                    + _cell(_x(g["geomean_speedup_all"]["compile"]))
                    + _cell(_pct(roof) + (f" ({g['roofline_tasks']} tasks)" if roof else ""))
                    + _cell(_money(g["cost_per_task_usd"])) + "</tr>")
    return "<h2>Summary</h2>" + _table(head, rows)


def _table(head: list[str], rows: list[str], css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return (f"<table{cls}><thead><tr>" + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _fast_p(metrics: dict) -> str:
    ps = list(metrics[m.OVERALL]["fast_p"]["eager"])
    rows = []
    for baseline in m.BASELINES:
        for name, g in metrics.items():
            rows.append(f'<tr><td class="text">{_baseline(baseline)}</td>'
                        f'<td class="text">{escape(name)}</td>'
                        + "".join(_cell(_pct(g["fast_p"][baseline][p])) for p in ps) + "</tr>")
    return ('<h2 id="fast-p">fast_p</h2><p class="caption">The share of tasks whose chosen '
            "kernel passed and is more than p× as fast as the baseline (eager PyTorch, or "
            f"torch.compile): {_def('fast_p', 'definition')}, "
            f"{_def('choose', 'which sample counts')}, "
            f"{_def('timed', 'when speedups count as measured')}.</p>"
            + _table(["baseline", "group"] + [f"fast_{escape(p)}" for p in ps], rows,
                     "fast-p"))


def _device(report: dict) -> str:
    return report["bench"]["device"]


def _speedup_plot(report: dict) -> str:
    title = "Speedup against eager PyTorch, per task"
    rows = [r for r in report["tasks"]
            if r["status"] == "passed" and r["speedup_vs_eager"] is not None]
    failed = sum(r["status"] != "passed" for r in report["tasks"])
    if not rows:
        svg = empty(title, NOT_MEASURED_HERE.format(device=_device(report))
                    if any(r["status"] == "passed" for r in report["tasks"])
                    else "no task passed: no speedup to plot")
    else:
        rows.sort(key=lambda r: r["speedup_vs_eager"])
        bars = [Bar(f"{r['task']}: {r['speedup_vs_eager']:.3g}× eager", r["speedup_vs_eager"],
                    "" if r["speedup_vs_eager"] > 1 else "slow", _href(r["task"]))
                for r in rows]
        svg = bar_chart(title, bars, log_scale([r["speedup_vs_eager"] for r in rows]),
                        ref=1.0, ref_label="1× (as fast as eager)",
                        y_label="speedup vs eager (log)")
    note = f" {failed} task(s) that did not pass are left out (they count as not fast)." \
        if failed else ""
    return (f'<h2 id="speedups">{title}</h2><p class="caption">The chosen kernel of each task '
            f"that passed, sorted; log scale, the dashed line is 1×.{note} Click a bar for "
            f"the task.</p><figure id='plot-speedup'>{svg}</figure>")


def _roofline_plot(report: dict) -> str:
    title = "Fraction of the roofline floor, per task"
    rows = [r for r in report["tasks"]
            if r["status"] == "passed" and r["roofline_fraction"] is not None]
    if not rows:
        timed = any(r["timed"] for r in report["tasks"])
        svg = empty(title, "no task has a roofline floor (ops without a FLOP rule)" if timed
                    else f"not measured on this device ({_device(report)}): the roofline "
                         "needs GPU timings")
    else:
        rows.sort(key=lambda r: r["roofline_fraction"])
        bars = [Bar(_roof_label(r), r["roofline_fraction"], "", _href(r["task"]))
                for r in rows]
        hi = max(1.0, max(r["roofline_fraction"] for r in rows))
        svg = bar_chart(title, bars, Scale(0.0, hi, False), ref=0.0, ref_label="",
                        y_label="floor time / kernel time", fmt=lambda v: f"{v:.0%}")
        svg = _floor_line(svg, hi)
    return (f'<h2 id="roofline">{title}</h2><p class="caption">Achieved time against the '
            "roofline floor (the time set by measured memory bandwidth and compute "
            "throughput): 100% runs at the floor. "
            f"{_def('median_roofline_fraction', 'Definition')}.</p>"
            f"<figure id='plot-roofline'>{svg}</figure>")


def _floor_line(svg: str, hi: float) -> str:
    """The dashed line at 100%, the floor, which a linear 0-based bar chart lacks."""
    y = Scale(0.0, hi, False).y(1.0)
    return svg.replace("</svg>", f'<line class="ref" x1="{LEFT}" x2="{W - RIGHT}" '
                                 f'y1="{y:.1f}" y2="{y:.1f}"/><text class="ref-label" '
                                 f'x="{W - RIGHT - 4}" '
                                 f'y="{y - 4:.1f}" text-anchor="end">floor (100%)</text></svg>')


def _roof_label(r: dict) -> str:
    times = ""
    if r.get("time_us") is not None and r.get("floor_us") is not None:
        times = f" ({r['time_us']:.3g} µs vs floor {r['floor_us']:.3g} µs)"
    return f"{r['task']}: {r['roofline_fraction']:.0%} of floor{times}"


def _progress_plot(report: dict) -> str:
    title = "Search progress"
    points = report.get("progress") or []
    timed = [p for p in points if p["best"] is not None]
    if not points:
        kind = report["bench"]["generator"].split(":", 1)[0]
        svg = empty(title, f"no search attempts: a {kind}: generator makes no LLM attempts")
    elif not timed:
        svg = empty(title, NOT_MEASURED_HERE.format(device=_device(report)))
    else:
        by_usd = any(p["usd"] for p in points)
        key, x_label = ("usd", "cumulative spend ($)") if by_usd else \
            ("elapsed_s", "wall time since the first attempt (s)")
        xy = [(p[key], p["best"] or 1.0, f"{p['task']} ({p['status']}), ${p['usd']:.4f}, "
               f"{p['elapsed_s']:.0f} s: geomean best {p['best'] or 1.0:.3g}×")
              for p in points]
        svg = line_chart(title, xy, log_scale([y for _, y, _ in xy]), x_label=x_label,
                         y_label="geomean best ×eager",
                         x_fmt=(lambda v: f"${v:.2f}") if by_usd else (lambda v: f"{v:.0f} s"))
    return (f'<h2 id="progress">{title}</h2><p class="caption">One point per LLM attempt: the '
            "geometric mean over the bench's tasks of each task's best verified speedup "
            "against eager so far (a task with none yet counts as 1×), against the money "
            "spent (or the wall time, when nothing was paid).</p>"
            f"<figure id='plot-progress'>{svg}</figure>")


def _href(task: str) -> str:
    return f"#task-{_slug(task)}"


def _slug(task: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", task)


def _status(status: str) -> str:
    css = "passed" if status == "passed" else "failed"
    return f'<td class="text {css}">{escape(status)}</td>'


def _us(value) -> str:
    return "not measured" if value is None else f"{value:.3g}"


def _task_table(rows: list[dict]) -> str:
    head = ["task", "status", "samples", "×eager", "×compile", "time µs", "eager µs",
            "floor µs", "roofline", "cost $", "reason"]
    body = []
    for r in rows:
        passed = r["status"] == "passed"
        nums = [_x(r["speedup_vs_eager"]), _x(r["speedup_vs_compile"]), _us(r.get("time_us")),
                _us(r.get("eager_us")), _us(r.get("floor_us")), _roof(r)] if passed \
            else ["–"] * 6
        reason = r["reason"] if len(r["reason"]) <= 100 else r["reason"][:100] + "…"
        body.append(f'<tr><td class="text"><a href="{_href(r["task"])}">{escape(r["task"])}'
                    f"</a></td>{_status(r['status'])}"
                    f'<td class="text">{escape(_samples(r))}</td>'
                    + "".join(_cell(n) for n in nums) + _cell(_money(r["cost_usd"]))
                    + f'<td class="text">{escape(reason)}</td></tr>')
    return ("<h2 id='tasks'>Tasks</h2><p class='caption'>Each task's chosen sample; the task "
            "name opens its kernel source and verdict below.</p>"
            + _table(head, body, "tasks"))


def _roof(r: dict) -> str:
    if r["roofline_fraction"] is None:
        return "no floor" if r["timed"] else "not measured"
    return _pct(r["roofline_fraction"])


def _task_details(rows: list[dict]) -> str:
    parts = ["<h2 id='kernels'>Kernels and verdicts</h2>"]
    for r in rows:
        reasons = r.get("reasons") or ([r["reason"]] if r["reason"] else [])
        source = r.get("source")
        code = (f"<pre><code>{escape(source)}</code></pre>" if source
                else "<p class='nm'>no kernel source stored</p>")
        where = f"<p class='meta'>file <code>{escape(r['candidate'])}</code>" \
            if r["candidate"] else "<p class='meta'>no kernel file"
        run = f" · optimize run <code>{escape(r['run_id'])}</code>" if r.get("run_id") else ""
        # the anchor sits inside the closed <details>: following a link to it opens it
        parts.append(f'<details id="kernel-{_slug(r["task"])}"><summary>{escape(r["task"])}'
                     f' — {escape(r["status"])}</summary><div id="task-{_slug(r["task"])}">'
                     f"{where}{run}</p>"
                     + ("<ul class='reasons'>" + "".join(f"<li>{escape(x)}</li>"
                                                         for x in reasons) + "</ul>"
                        if reasons else "") + code + "</div></details>")
    return "\n".join(parts)


def _definitions() -> str:
    items = "".join(f'<dt id="def-{f.__name__}"><code>{f.__name__}</code></dt>'
                    f"<dd>{escape(' '.join(inspect.getdoc(f).split()))}</dd>"
                    for f in m.DEFINITIONS)
    return ('<h2 id="definitions">Definitions</h2><p class="caption">As written in '
            "warpsmith's docs/metrics.md (the same words, from the metric functions).</p>"
            f"<dl>{items}</dl>")


def render_comparison_html(cmp: dict) -> str:
    a, b = cmp["a"], cmp["b"]
    body = [f"<h1><code>{escape(b['id'])}</code> (B) against <code>{escape(a['id'])}</code> "
            "(A)</h1>",
            f"<p class='meta'>A: <code>{escape(a['generator'])}</code> on {escape(a['device'])}"
            f", K = {a['samples']}, {escape(a['suite'])}<br>B: <code>{escape(b['generator'])}"
            f"</code> on {escape(b['device'])}, K = {b['samples']}, {escape(b['suite'])}</p>",
            _cmp_metrics(cmp["metrics"]), _ratio_plot(cmp), _cmp_tasks(cmp["tasks"])]
    return _page(f"warpsmith {b['id']} vs {a['id']}", body)


def _cmp_metrics(rows: list[dict]) -> str:
    body = []
    for r in rows:
        fmt = _x if "geomean" in r["metric"] else (_money if "cost" in r["metric"] else _pct)
        delta = "–" if r["delta"] is None else f"{r['delta']:+.3g}"
        body.append(f'<tr><td class="text">{escape(r["metric"])}</td>' + _cell(fmt(r["a"]))
                    + _cell(fmt(r["b"])) + _cell(delta) + "</tr>")
    return "<h2>Metrics (overall)</h2>" + _table(["metric", "A", "B", "B − A"], body)


def _ratio_plot(cmp: dict) -> str:
    title = "Eager speedup of B over A, per task"
    rows = sorted((r for r in cmp["tasks"] if r["ratio"] is not None), key=lambda r: r["ratio"])
    if not rows:
        svg = empty(title, "not measured on these devices: no task has a speedup in both runs")
    else:
        bars = [Bar(f"{r['task']}: B/A {r['ratio']:.3g}× ({r['change']})", r["ratio"],
                    "" if r["ratio"] >= 1 else "slow", f"#cmp-{_slug(r['task'])}")
                for r in rows]
        svg = bar_chart(title, bars, log_scale([r["ratio"] for r in rows]), ref=1.0,
                        ref_label="1× (no change)", y_label="B speedup / A speedup (log)")
    return f"<h2>{title}</h2><figure id='plot-ratio'>{svg}</figure>"


def _cmp_tasks(rows: list[dict]) -> str:
    body = [f'<tr id="cmp-{_slug(r["task"])}"><td class="text">{escape(r["task"])}</td>'
            f"{_status(r['status_a'] or '–')}{_status(r['status_b'] or '–')}"
            + _cell(_x(r["speedup_a"])) + _cell(_x(r["speedup_b"])) + _cell(_x(r["ratio"]))
            + f'<td class="text">{escape(r["change"])}</td></tr>' for r in rows]
    return "<h2>Tasks</h2>" + _table(["task", "A", "B", "×eager A", "×eager B", "B / A",
                                      "change"], body, "tasks")
