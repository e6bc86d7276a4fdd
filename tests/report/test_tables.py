"""The JSON and Markdown reports, and the comparison of two, from hand-built items."""

import json
import sys
from dataclasses import replace

from warpsmith.bench import BenchRecord
from warpsmith.report import (
    build_report,
    compare_reports,
    load_report,
    render_comparison,
    render_report,
)
from warpsmith.report.tables import LEGACY_NOTE, change
from warpsmith.types import Timing

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
    # a task timed in A but not in B (a CPU bench) passed in both: its speed is unknown in
    # B, not the same (it said "same" against a GPU bench's 0.96×)
    cpu = [item("a", "passed", device="cpu")]
    untimed = compare_reports(build_report(record(), GPU), build_report(record("bench-c"), cpu))
    assert next(r for r in untimed["tasks"] if r["task"] == "a")["change"] == "not compared"
    # folders of kernels ask no model: their cost is not "$0.0000" but "no model"
    assert "| cost_per_task_usd | no model | no model | – |" in text


def test_a_comparison_prices_only_the_bench_that_asked_a_model():
    bought = BenchRecord("bench-b", "builtin/level1", "llm:refine:openai:gpt-4.1",
                         SETTINGS, "finished", 1.7e9, 1.7e9)
    cmp = compare_reports(build_report(record(), GPU), build_report(bought, GPU))
    cost = next(r for r in cmp["metrics"] if r["metric"] == "cost_per_task_usd")
    assert cost["a"] is None and cost["a_note"] == "no model" and cost["delta"] is None
    assert "b_note" not in cost
    assert "| cost_per_task_usd | no model | " in render_comparison(cmp)


def test_change_words():
    row = {"status": "passed", "speedup_vs_eager": 1.0}
    assert change(row, {"status": "incorrect"}) == "broken"
    assert change(row, {"status": "passed", "speedup_vs_eager": 0.5}) == "slower"


def _with(item_, **verdict_fields):
    return replace(item_, verdict=replace(item_.verdict, **verdict_fields))


def test_environment_comes_from_the_verdicts_and_shows_a_mix():
    env = {"gpu": "NVIDIA H200", "cuda": "13.0", "torch": "2.11.0", "verifier": "3"}
    items = [_with(GPU[0], environment=env), _with(GPU[1], environment=env | {"torch": "2.12.0"}),
             *GPU[2:]]
    report = build_report(record(), items)
    got = report["bench"]["environment"]
    assert got["gpu"] == "NVIDIA H200" and got["torch"] == "2.11.0 + 2.12.0"
    assert got["driver"] is None and got["triton"] is None  # not recorded: never guessed
    text = render_report(report)
    assert "| GPU | NVIDIA H200 |" in text and "| torch | 2.11.0 + 2.12.0 |" in text
    assert "| driver | not recorded |" in text and "| profile | quick |" in text


def test_markdown_shows_the_timing_spread():
    timings = (Timing("candidate", 10.0, 9.0, 12.5, 0.8, 200), Timing("eager", 20.0, 19, 22, 1.5,
                                                                      200))
    items = [_with(GPU[0], timings=timings), *GPU[1:]]
    text = render_report(build_report(record(), items))
    assert "| 10 (IQR 0.8; 9–12.5; 200) | 20 (IQR 1.5) |" in text


def test_model_free_benches_say_no_model_and_paid_ones_their_cost():
    free = render_report(build_report(record(), GPU))  # dir:/k buys nothing
    assert "no model" in free and "unpriced" not in free and "0.0000" not in free
    paid = BenchRecord("bench-p", "builtin/level1", "llm:refine:openai:gpt-4.1", SETTINGS,
                       "finished", 1.7e9, 1.7e9)
    text = render_report(build_report(paid, [replace(i, cost_usd=0.01) for i in GPU]))
    assert "no model" not in text and "0.0100" in text


def test_comparison_warns_on_different_tasks_devices_and_verifiers():
    same = compare_reports(build_report(record(), GPU), build_report(record("bench-b"), GPU))
    assert same["warnings"] == [] and "Warning" not in render_comparison(same)
    cpu = [replace(_with(i, device="cpu", environment={"verifier": "2"}) if i.verdict else i)
           for i in GPU[:3]]
    other = build_report(BenchRecord("bench-c", "builtin/level1", "dir:/k",
                                     SETTINGS | {"device": "cpu"}, "finished", 1.7e9, 1.7e9),
                         cpu)
    cmp = compare_reports(build_report(record(), GPU), other)
    assert cmp["warnings"] == [
        "different task sets: A has 4 tasks, B 3, 3 in both (1 only in A, 0 only in B); the "
        "overall metrics are over different tasks",
        "different devices: A ran on cuda, B on cpu",
        "different verifier versions: A not recorded, B 2"]
    text = render_comparison(cmp)
    assert text.index("not comparable") < text.index("## Metrics")


def test_the_legacy_budget_none_reason_is_never_shown(tmp_path):
    old = replace(GPU[3], note=LEGACY_NOTE)
    report = build_report(record(), [*GPU[:3], old])
    assert "(None)" not in render_report(report)
    saved = json.loads(json.dumps(report))
    saved["tasks"][-1]["reason"] = saved["tasks"][-1]["reasons"][0] = LEGACY_NOTE
    del saved["bench"]["environment"]  # a report written before the environment was kept
    path = tmp_path / "old.json"
    path.write_text(json.dumps(saved))
    loaded = load_report(str(path), tmp_path / "unused.sqlite")
    assert "(None)" not in render_report(loaded) and "no reason" in render_report(loaded)
    assert "| GPU | not recorded |" in render_report(loaded)


def test_html_without_matplotlib_says_what_to_install(monkeypatch):
    import pytest

    from warpsmith.errors import UsageError
    from warpsmith.report import render_html

    for name in ("matplotlib", "matplotlib.figure"):
        monkeypatch.setitem(sys.modules, name, None)  # import now raises ImportError
    with pytest.raises(UsageError, match=r"pip install 'warpsmith\[report\]'"):
        render_html(build_report(record(), GPU))
    assert "no model" in render_report(build_report(record(), GPU))  # markdown needs none


def test_an_environment_nothing_recorded_says_why_not_as_the_verdicts_recorded_it(tmp_path):
    """suite.html, rendered from a JSON report older than the environment block, captioned
    its column of "not recorded" with "As the verdicts recorded it"."""
    from warpsmith.report import render_html

    saved = json.loads(json.dumps(build_report(record(), GPU)))
    del saved["bench"]["environment"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(saved))
    loaded = load_report(str(path), tmp_path / "unused.sqlite")
    for text in (render_report(loaded), render_html(loaded)):
        assert "As the verdicts recorded it" not in text and "Not recorded: this report" in text
    fresh = build_report(record(), [_with(GPU[0], environment={"gpu": "NVIDIA H200"}), *GPU[1:]])
    assert "As the verdicts recorded it" in render_report(fresh)
