"""The HTML report's charts, drawn by matplotlib (its Agg-free SVG backend, no pyplot state)
and inlined as SVG text, so the page stays one self-contained file.

Text stays text (svg.fonttype "none"): the browser test reads task names and labels, and a
reader can search and copy them. Every bar is a group with id `CHART-bar-fast-N` or
`CHART-bar-slow-N`, every point `CHART-point-N`, the reference line's legend
`CHART-ref-label`, an empty chart's message `CHART-empty` (ids unique on the page): the
browser test counts and places them. The reference line is explained in a legend above the
axes, so its label can never sit on a bar.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from ..errors import UsageError

INSTALL = "the HTML report draws its charts with matplotlib: pip install 'warpsmith[report]'"
WIDTH = 9.0  # inches at 80 dpi: 720 px, the page's column
FAST, SLOW, REF = "#4a78c2", "#d08a3a", "#b3261e"


@dataclass(frozen=True)
class Bar:
    label: str  # the task, on the axis
    value: float
    slow: bool = False
    href: str | None = None  # where a click goes (the task's row)
    text: str = ""  # printed at the bar's end


def _matplotlib():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError(INSTALL) from None
    return matplotlib, Figure


def _svg(fig, name: str) -> str:
    """The figure as an <svg> element: no XML prologue, no date, ids salted by chart name so
    several charts on one page never share a clip-path id."""
    matplotlib, _ = _matplotlib()
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    # links go to the task's row on the same page, not to a new tab
    return text[text.index("<svg"):].replace(' target="_blank"', "")


def _figure(height: float):
    _, Figure = _matplotlib()
    fig = Figure(figsize=(WIDTH, height), dpi=80)
    fig.set_layout_engine("constrained")
    return fig, fig.add_subplot()


def bars(name: str, items: list[Bar], *, ref: float, ref_label: str, x_label: str,
         log: bool, x_max: float | None = None, line: float | None = None) -> str:
    """Horizontal bars, one per task (named on the axis), growing from `ref` (1×, or 0) to
    each value; the dashed reference line, labelled ref_label, is at `line` (default ref)."""
    fig, ax = _figure(1.3 + 0.3 * len(items))
    ys = range(len(items))
    drawn = ax.barh(ys, [b.value - ref for b in items], left=ref, height=0.7,
                    color=[SLOW if b.slow else FAST for b in items])
    for k, (patch, b) in enumerate(zip(drawn, items, strict=True)):
        patch.set_gid(f"{name}-bar-{'slow' if b.slow else 'fast'}-{k}")
        patch.set_url(b.href)
    ax.bar_label(drawn, labels=[b.text for b in items], padding=3, fontsize=8)
    ax.set_yticks(list(ys), [b.label for b in items], fontsize=9)
    ax.axvline(ref if line is None else line, color=REF, linestyle="--", linewidth=1.2,
               label=ref_label, gid=f"{name}-ref-line")
    _x_axis(ax, [b.value for b in items] + [ref], log, x_max)
    ax.set_xlabel(x_label)
    ax.grid(axis="x", color="#e6e8ee")
    ax.set_axisbelow(True)
    legend = ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False,
                       fontsize=9, borderaxespad=0.2)
    legend.set_gid(f"{name}-ref-label")
    return _svg(fig, name)


def _x_axis(ax, values: list[float], log: bool, x_max: float | None) -> None:
    """Room beyond the longest bar for its printed value, on either side of the line."""
    if log:
        ax.set_xscale("log", base=2)
        lo, hi = min(values), max(values)
        ax.set_xlim(lo / 2 ** 0.9, hi * 2 ** 0.9)
        ax.xaxis.set_major_formatter(lambda v, _: f"{v:g}×")
    else:
        ax.set_xlim(0.0, (x_max or max(values)) * 1.15)
        ax.xaxis.set_major_formatter(lambda v, _: f"{v:.0%}")


def progress(name: str, points: list[tuple[float, float]], *, x_label: str,
             y_label: str, x_money: bool) -> str:
    """A step line through (x, y) points, a dot at each, and the 1× line."""
    fig, ax = _figure(3.4)
    xs, ys = zip(*points, strict=True)
    ax.step(xs, ys, where="post", color=FAST, linewidth=2)
    for k, (x, y) in enumerate(points):
        ax.plot([x], [y], "o", color="#1d4f9c", markersize=5, gid=f"{name}-point-{k}")
    ax.axhline(1.0, color=REF, linestyle="--", linewidth=1.2, label="1× (no speedup yet)")
    # linear: a geometric mean of best-so-far speedups spans a narrow range, where a log
    # axis would show a single tick
    lo, hi = min(ys + (1.0,)), max(ys + (1.0,))
    pad = max((hi - lo) * 0.1, 0.05)
    ax.set_ylim(lo - pad, hi + pad)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.3g}×")
    ax.xaxis.set_major_formatter((lambda v, _: f"${v:.2f}") if x_money
                                 else (lambda v, _: f"{v:.0f} s"))
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.grid(color="#e6e8ee")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=9)
    return _svg(fig, name)


def message(name: str, text: str) -> str:
    """A chart with nothing to draw says why, never a blank box."""
    fig, ax = _figure(1.1)
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=12, color="#667",
            wrap=True, gid=f"{name}-empty")
    return _svg(fig, name)


def speedup_text(value: float) -> str:
    return f"{value:.3g}×" if math.isfinite(value) else "?"
