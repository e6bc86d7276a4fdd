"""Every metric on hand-built verdicts, against values worked out by hand."""

import inspect
import math
import re
from pathlib import Path

import pytest

from warpsmith.bench import Item
from warpsmith.report import metrics as m
from warpsmith.report.metrics import by_level, choose, summarize
from warpsmith.types import Verdict

DOCS = Path(__file__).parent.parent.parent / "docs" / "metrics.md"


def item(task, status, eager=None, compile=None, *, sample=0, level="level1", device="cuda",
         roofline=None, cost=None, unpriced=0):
    verdict = None
    if status != "no_candidate":
        verdict = Verdict(status=status, task=task, candidate="c.py", device=device,
                          correct=status in ("passed", "suspect"),
                          timing_measured=eager is not None, speedup_vs_eager=eager,
                          speedup_vs_compile=compile, roofline_fraction=roofline)
    return Item(task, sample, status, level, verdict, cost_usd=cost,
                spend={"unpriced_calls": unpriced})


# a: 2x eager, exactly 1x compile; b: exactly 1x eager, 0.5x compile; c fails; d has no file.
GPU = [item("a", "passed", 2.0, 1.0, roofline=0.5), item("b", "passed", 1.0, 0.5, roofline=0.3),
       item("c", "incorrect", level="level2"), item("d", "no_candidate", level="level2")]


def test_fast_p_is_strict_and_counts_failures_as_not_fast():
    eager = summarize(GPU, 1).fast_p["eager"]
    assert eager == {"0": 0.5, "0.5": 0.5, "0.8": 0.5, "1": 0.25, "1.5": 0.25, "2": 0.0}
    compiled = summarize(GPU, 1).fast_p["compile"]
    assert compiled == {"0": 0.5, "0.5": 0.25, "0.8": 0.25, "1": 0.0, "1.5": 0.0, "2": 0.0}


def test_correctness_rate_and_fast_0_agree_when_timed():
    s = summarize(GPU, 1)
    assert s.correctness_rate == 0.5 == s.fast_p["eager"]["0"] and s.correct == 2


def test_geomean_over_correct_tasks_and_over_all_with_failures_as_one():
    s = summarize(GPU, 1)
    assert s.geomean_speedup_correct["eager"] == pytest.approx(math.sqrt(2.0))
    assert s.geomean_speedup_all["eager"] == pytest.approx(2.0 ** 0.25)  # (2·1·1·1)^¼
    assert s.geomean_speedup_correct["compile"] == pytest.approx(math.sqrt(0.5))
    assert s.geomean_speedup_all["compile"] == pytest.approx(0.5 ** 0.25)


def test_roofline_median_and_no_cost_for_a_folder():
    s = summarize(GPU, 1)
    assert s.median_roofline_fraction == pytest.approx(0.4) and s.roofline_tasks == 2
    assert s.cost_per_task_usd is None


def test_per_level_groups():
    levels = by_level(GPU, 1)
    assert list(levels) == ["overall", "level1", "level2"]
    assert levels["level1"].correctness_rate == 1.0 and levels["level1"].fast_p["eager"]["1"] == 0.5
    # measured on a GPU and nothing passed: a real 0, not "not measured"
    assert levels["level2"].fast_p["eager"]["1"] == 0.0
    assert levels["level2"].geomean_speedup_correct["eager"] is None
    assert levels["level2"].geomean_speedup_all["eager"] == 1.0


def test_untimed_cpu_results_are_not_measured_never_zero_or_one():
    cpu = [item("a", "passed", device="cpu"), item("b", "incorrect", device="cpu"),
           item("c", "no_candidate")]
    s = summarize(cpu, 1)
    assert s.correctness_rate == pytest.approx(1 / 3)
    assert all(v is None for b in m.BASELINES for v in s.fast_p[b].values())
    assert s.geomean_speedup_correct == {"eager": None, "compile": None}
    assert s.geomean_speedup_all == {"eager": None, "compile": None}
    assert s.median_roofline_fraction is None
    failed_only = summarize([item("b", "incorrect", device="cpu")], 1)
    assert failed_only.fast_p["eager"]["1"] is None and failed_only.correctness_rate == 0.0


def test_a_passed_but_untimed_sample_on_a_gpu_makes_speedups_not_measured():
    mixed = [item("a", "passed", 2.0, 1.5), item("b", "passed", device="cuda")]
    assert summarize(mixed, 1).fast_p["eager"]["1"] is None


def test_best_of_k_chooses_the_fastest_passed_sample_or_the_first_failure():
    items = [item("e", "incorrect", sample=0), item("e", "passed", 1.2, sample=1),
             item("e", "passed", 1.8, sample=2), item("f", "timeout", sample=1),
             item("f", "incorrect", sample=0)]
    chosen = {i.task: i for i in choose(items)}
    assert chosen["e"].sample == 2 and chosen["f"].sample == 0
    assert chosen["f"].status == "incorrect"
    untimed = [item("g", "incorrect", sample=0, device="cpu"),
               item("g", "passed", sample=2, device="cpu"),
               item("g", "passed", sample=1, device="cpu")]
    assert choose(untimed)[0].sample == 1  # untimed samples tie: the lowest number wins
    s = summarize(items, 3)
    assert s.tasks == 2 and s.samples == 3 and s.fast_p["eager"]["1.5"] == 0.5


def test_suspect_does_not_count_as_correct():
    s = summarize([item("a", "suspect", 40.0, 30.0), item("b", "passed", 1.1, 0.9)], 1)
    assert s.correctness_rate == 0.5 and s.fast_p["eager"]["2"] == 0.0


def test_cost_per_task_counts_all_samples_and_unpriced_calls():
    items = [item("x", "passed", sample=0, cost=0.1, device="cpu"),
             item("x", "incorrect", sample=1, cost=0.2, unpriced=1, device="cpu"),
             item("y", "passed", sample=0, cost=0.3, device="cpu")]
    s = summarize(items, 2)
    assert s.cost_per_task_usd == pytest.approx(0.3) and s.unpriced_calls == 1


def test_empty_group():
    s = summarize([], 1)
    assert s.tasks == 0 and s.correctness_rate is None and s.fast_p["eager"]["1"] is None


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_docs_repeat_each_definition_word_for_word():
    docs = _words(DOCS.read_text())
    for fn in m.DEFINITIONS:
        assert _words(inspect.getdoc(fn)) in docs, f"docs/metrics.md lacks {fn.__name__}"
