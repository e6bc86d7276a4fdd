"""Reports of benches: the metrics (defined once, in metrics.py), JSON and Markdown views,
and task-by-task comparisons of two benches."""

from .html import render_comparison_html, render_html
from .markdown import render_comparison, render_report
from .metrics import Metrics, by_level, choose, summarize
from .tables import build_report, compare_reports, load_report

__all__ = ["Metrics", "build_report", "by_level", "choose", "compare_reports", "load_report",
           "render_comparison", "render_comparison_html", "render_html",
           "render_report", "summarize"]
