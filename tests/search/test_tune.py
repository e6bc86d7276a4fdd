"""The knob tuner's search, on hand-made verdicts (timing needs a GPU; the library strategy's
CPU path is in test_optimize.py)."""

from warpsmith.search.tune import neighbours, tune
from warpsmith.store.runs import Attempt
from warpsmith.types import Verdict


def timed(speedup: float | None, status: str = "passed") -> Attempt:
    verdict = Verdict(status=status, task="t", candidate="c", device="cuda",
                      correct=status == "passed", timing_measured=True,
                      speedup_vs_eager=speedup)
    return Attempt("run", 0, 0, 0, status, [], verdict=verdict)


def test_neighbours_halve_and_double_one_knob_at_a_time():
    assert neighbours({"BLOCK": 1024, "WARPS": 1}) == [
        {"BLOCK": 512, "WARPS": 1}, {"BLOCK": 2048, "WARPS": 1}, {"BLOCK": 1024, "WARPS": 2}]


def test_tune_climbs_to_the_fastest_verified_variant_and_skips_broken_ones():
    def speed_of(knobs):  # faster with bigger blocks up to 4096; 8192 breaks the kernel
        if knobs["BLOCK"] == 8192:
            return timed(None, "incorrect")
        return timed(knobs["BLOCK"] / 1024)

    tried = []

    def try_variant(knobs, index, parent):
        tried.append(knobs["BLOCK"])
        return speed_of(knobs)

    best = tune(timed(1.0), {"BLOCK": 1024}, try_variant)
    assert best.verdict.speedup_vs_eager == 4.0
    assert 8192 in tried  # tried, failed verification, not kept


def test_tune_stops_when_the_budget_says_so():
    best = tune(timed(1.0), {"BLOCK": 1024}, lambda knobs, i, parent: None)
    assert best.verdict.speedup_vs_eager == 1.0


def test_zero_rounds_tries_no_variant():
    tried = []
    best = tune(timed(1.0), {"BLOCK": 1024}, lambda knobs, i, parent: tried.append(knobs),
                rounds=0)
    assert tried == [] and best.verdict.speedup_vs_eager == 1.0
