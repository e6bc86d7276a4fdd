"""Inline SVG charts for the HTML report, written as text: no plotting library, no script, so
the page is one file that renders anywhere. Every bar is a `rect.bar` and every point a
`circle.point` (the browser test counts them); a chart with nothing to draw is an `svg.empty`
that says why, never a blank box."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

W, H = 720, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 28, 44


@dataclass(frozen=True)
class Bar:
    label: str  # the tooltip
    value: float
    css: str = ""  # extra class, e.g. the task's status
    href: str | None = None  # where a click goes (a task's row)


@dataclass(frozen=True)
class Scale:
    lo: float
    hi: float
    log: bool

    def y(self, v: float) -> float:
        f = _f(self, v)
        return TOP + (H - TOP - BOTTOM) * (1 - (f - _f(self, self.lo)) /
                                           (_f(self, self.hi) - _f(self, self.lo)))


def _f(scale: Scale, v: float) -> float:
    return math.log10(v) if scale.log else v


def log_scale(values: list[float]) -> Scale:
    """Powers of two around the data and always around 1×, so the 1× line is on the chart."""
    lo, hi = min(values + [1.0]), max(values + [1.0])
    return Scale(2.0 ** math.floor(math.log2(lo) - 0.01), 2.0 ** math.ceil(math.log2(hi) + 0.01),
                 True)


def ticks(scale: Scale) -> list[float]:
    if not scale.log:
        step = 0.25 if scale.hi <= 1.5 else 0.5
        return [i * step for i in range(int(scale.hi / step) + 1)]
    n = round(math.log2(scale.hi / scale.lo))
    every = max(1, math.ceil(n / 8))
    return [scale.lo * 2.0 ** k for k in range(0, n + 1, every)]


def bar_chart(title: str, bars: list[Bar], scale: Scale, *, ref: float, ref_label: str,
              y_label: str, fmt=lambda v: f"{v:g}×") -> str:
    """Vertical bars growing from the reference line `ref` (1× or the floor) to each value."""
    plot_w = W - LEFT - RIGHT
    step = plot_w / max(len(bars), 1)
    width = max(step * 0.8, 1.0)
    y_ref = scale.y(ref)
    parts = [_open(title), _axis(scale, y_label, fmt)]
    for k, b in enumerate(bars):
        x = LEFT + k * step + (step - width) / 2
        y = scale.y(min(max(b.value, scale.lo), scale.hi))
        rect = (f'<rect class="bar {escape(b.css)}" x="{x:.1f}" y="{min(y, y_ref):.1f}" '
                f'width="{width:.1f}" height="{max(abs(y_ref - y), 1.0):.1f}">'
                f"<title>{escape(b.label)}</title></rect>")
        parts.append(f'<a href="{escape(b.href)}">{rect}</a>' if b.href else rect)
    parts.append(f'<line class="ref" x1="{LEFT}" x2="{W - RIGHT}" y1="{y_ref:.1f}" '
                 f'y2="{y_ref:.1f}"/><text class="ref-label" x="{W - RIGHT - 4}" '
                 f'y="{y_ref - 4:.1f}" text-anchor="end">{escape(ref_label)}</text>')
    parts.append(_x_label(f"{len(bars)} tasks, sorted"))
    return "".join(parts) + "</svg>"


def line_chart(title: str, points: list[tuple[float, float, str]], scale: Scale, *,
               x_label: str, y_label: str, x_fmt) -> str:
    """A step line through (x, y) points with a dot at each, and a 1× line."""
    x_hi = max(p[0] for p in points) or 1.0

    def x(v: float) -> float:
        return LEFT + (W - LEFT - RIGHT) * v / x_hi

    path = " ".join(f"{'M' if k == 0 else 'L'}{x(px):.1f},{scale.y(py):.1f}"
                    for k, (px, py, _) in enumerate(points))
    parts = [_open(title), _axis(scale, y_label, lambda v: f"{v:g}×"),
             f'<path class="series" d="{path}"/>']
    parts += [f'<circle class="point" cx="{x(px):.1f}" cy="{scale.y(py):.1f}" r="3">'
              f"<title>{escape(label)}</title></circle>" for px, py, label in points]
    parts.append(f'<line class="ref" x1="{LEFT}" x2="{W - RIGHT}" y1="{scale.y(1.0):.1f}" '
                 f'y2="{scale.y(1.0):.1f}"/>')
    parts.append(f'<text class="tick" x="{LEFT}" y="{H - BOTTOM + 16}">{x_fmt(0)}</text>'
                 f'<text class="tick" x="{W - RIGHT}" y="{H - BOTTOM + 16}" '
                 f'text-anchor="end">{x_fmt(x_hi)}</text>')
    parts.append(_x_label(x_label))
    return "".join(parts) + "</svg>"


def empty(title: str, message: str) -> str:
    return (f'<svg class="plot empty" viewBox="0 0 {W} 90" width="{W}" height="90" '
            f'role="img" aria-label="{escape(title)}: {escape(message)}">'
            f'<rect class="frame" x="1" y="1" width="{W - 2}" height="88"/>'
            f'<text class="empty-msg" x="{W / 2}" y="50" text-anchor="middle">'
            f"{escape(message)}</text></svg>")


def _open(title: str) -> str:
    return (f'<svg class="plot" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
            f'aria-label="{escape(title)}">')


def _axis(scale: Scale, label: str, fmt) -> str:
    parts = [f'<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{H - BOTTOM}"/>']
    for t in ticks(scale):
        y = scale.y(t)
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" '
                     f'y2="{y:.1f}"/><text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{escape(fmt(t))}</text>')
    parts.append(f'<text class="axis-label" x="14" y="{(TOP + H - BOTTOM) / 2}" '
                 f'transform="rotate(-90 14 {(TOP + H - BOTTOM) / 2})" text-anchor="middle">'
                 f"{escape(label)}</text>")
    return "".join(parts)


def _x_label(text: str) -> str:
    return (f'<text class="axis-label" x="{(LEFT + W - RIGHT) / 2}" y="{H - 10}" '
            f'text-anchor="middle">{escape(text)}</text>')
