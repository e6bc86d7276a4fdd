"""The JSON and Markdown reports, and the comparison of two, from hand-built items."""

import json

from warpsmith.bench import BenchRecord
from warpsmith.report import build_report, compare_reports, render_comparison, render_report
from warpsmith.report.tables import change

from .test_metrics import GPU, item

SETTINGS = {"samples": 1, "device": "cuda", "profile": "quick",
            "budget": {"calls": None, "usd": 5.0}, "tasks": ["a", "b", "c", "d"],
            "not_loaded": []}


def record(id_="bench-a", status="finished", tasks=4):
    return BenchRecord(id_, "builtin/level1", "dir:/k", SETTINGS | {"tasks": list("abcd")[:tasks]},
                       status, 1.7e9, 1.7e9)


def test_json_report_has_metrics_per_level_and_one_row_per_task():
    report = json.loads(json.dumps(build_report(record(), GPU)))
    assert report["bench"]["items_done"] == 4 and report["bench"]["budget"] == {"usd": 5.0}
    assert report["metrics"]["overall"]["fast_p"]["eager"]["1"] == 0.25
    assert set(report["metrics"]) == {"overall", "level1", "level2"}
    rows = {r["task"]: r for r in report["tasks"]}
    assert rows["a"]["speedup_vs_eager"] == 2.0 and rows["a"]["status"] == "passed"
    assert rows["d"]["status"] == "no_candidate" and rows["d"]["statuses"] == ["no_candidate"]


def test_markdown_shows_fast_p_tables_rows_and_incomplete_runs():
    text = render_report(build_report(record(), GPU))
    assert "| eager PyTorch | overall | 50% | 50% | 50% | 25% | 25% | 0% |" in text
    assert "| torch.compile | overall | 50% | 25% | 25% | 0% | 0% | 0% |" in text
    assert "| a | passed | 1/1 passed, #0 chosen | 2.00× | 1.00× | 50% |" in text
    assert "| c | incorrect | 0/1 passed, #0 chosen | – | – | – |" in text
    assert "Incomplete" not in text
    partial = render_report(build_report(record(), GPU[:2]))
    assert "**Incomplete** (2/4 items)" in partial and "--resume bench-a" in partial


def test_markdown_says_not_measured_for_untimed_numbers():
    cpu = [item("a", "passed", device="cpu"), item("b", "incorrect", device="cpu")]
    text = render_report(build_report(record(tasks=2), cpu))
    assert "not measured" in text and "| overall | 2 | 1 (50%) | not measured |" in text


def test_comparison_task_by_task():
    better = [item("a", "passed", 2.5, 1.2), item("b", "passed", 1.02, 0.5),
              item("c", "passed", 1.1, 1.0, level="level2"),
              item("e", "passed", 3.0, 2.0)]
    cmp = compare_reports(build_report(record(), GPU), build_report(record("bench-b"), better))
    changes = {r["task"]: r["change"] for r in cmp["tasks"]}
    assert changes == {"a": "faster", "b": "same", "c": "fixed", "d": "only in A",
                       "e": "only in B"}
    rate = next(r for r in cmp["metrics"] if r["metric"] == "correctness_rate")
    assert rate == {"metric": "correctness_rate", "a": 0.5, "b": 1.0, "delta": 0.5}
    text = render_comparison(cmp)
    assert "| a | passed | passed | 2.00× | 2.50× | 1.25× | faster |" in text


def test_change_words():
    row = {"status": "passed", "speedup_vs_eager": 1.0}
    assert change(row, {"status": "incorrect"}) == "broken"
    assert change(row, {"status": "passed", "speedup_vs_eager": 0.5}) == "slower"
