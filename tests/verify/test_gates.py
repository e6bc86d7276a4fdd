from dataclasses import replace

import pytest

from warpsmith.types import Timing, Verdict
from warpsmith.verify import pipeline
from warpsmith.verify.isolation import gpulock
from warpsmith.verify.timing.gates import apply_gates, implausible, remeasured


def _timed(cand_us, eager_us, compile_us, peak_floor_us=100.0):
    timings = (Timing("candidate", cand_us, cand_us, cand_us, 0, 25),
               Timing("eager", eager_us, eager_us, eager_us, 0, 25),
               Timing("compile", compile_us, compile_us, compile_us, 0, 25))
    return Verdict(status="passed", task="level1/relu", candidate="c.py", device="cuda",
                   correct=True, timing_measured=True, timings=timings,
                   speedup_vs_eager=eager_us / cand_us, speedup_vs_compile=compile_us / cand_us,
                   peak_floor_us=peak_floor_us)


def test_plausible_result_stays_passed_without_flags():
    verdict = apply_gates(_timed(500, 1000, 600))
    assert verdict.status == "passed" and verdict.warnings == ()


def test_below_the_dense_floor_is_flagged_never_rejected_for_being_fast():
    """Issue 31: a kernel that exploits its inputs' structure (KernelBench level1/14, a
    triangular matmul, on the trusted clock) beats the dense op's floor honestly."""
    verdict = apply_gates(_timed(90, 110, 105))
    assert verdict.status == "passed" and verdict.rules == ()
    assert any(w.startswith("below-dense-floor") for w in verdict.warnings)


def test_implausible_speedups_are_flagged_never_held():
    """Issue 31, item 3: measured again and flagged, never rejected for being fast."""
    far = _timed(150, 2000, 1000)  # 13× eager, 6.7× compile
    assert len(implausible(far)) == 2
    flagged = apply_gates(far)
    assert flagged.status == "passed"
    assert any(w.startswith("implausibly-fast") for w in flagged.warnings)


def test_untimed_and_failed_verdicts_are_untouched():
    untimed = replace(_timed(50, 1000, 600), timing_measured=False)
    assert apply_gates(untimed) == untimed and implausible(untimed) == []
    failed = replace(_timed(50, 1000, 600), status="incorrect")
    assert apply_gates(failed) == failed and implausible(failed) == []


def test_a_slow_torch_compile_is_no_ground_for_suspicion():
    """KernelBench level1/83 on the H200: compile 5× slower than eager, the honest depthwise
    kernel 0.91× eager, 4.6× compile. The faster baseline counts."""
    assert implausible(_timed(1588, 1449, 7266, peak_floor_us=200)) == []
    assert implausible(_timed(400, 1449, 7266, peak_floor_us=200)) != []


def test_a_remeasurement_keeps_the_slower_run_and_says_both():
    first, again = _timed(150, 2000, 1000), _timed(180, 2000, 1000)
    kept = remeasured(first, again)
    assert kept.speedup_vs_eager == again.speedup_vs_eager
    assert any("13.33× eager" in w and "11.11× eager" in w for w in kept.warnings)
    assert remeasured(again, first).speedup_vs_eager == again.speedup_vs_eager


def test_a_remeasurement_that_fails_is_the_verdict():
    """A wrong output the second time is wrong: the candidate cannot pass on a lucky run."""
    wrong = replace(_timed(150, 2000, 1000), status="incorrect", correct=False,
                    timing_measured=False)
    kept = remeasured(_timed(150, 2000, 1000), wrong)
    assert kept.status == "incorrect"
    assert any("first run passed" in w for w in kept.warnings)


@pytest.mark.parametrize("first_us, runs", [(150, 2), (500, 1)])
def test_the_pipeline_verifies_an_implausible_result_again(monkeypatch, first_us, runs):
    """pipeline._run runs the candidate a second time (a fresh worker, baselines re-timed)
    only when the first result is implausible, and keeps the slower."""
    results = iter([_timed(first_us, 2000, 1000), _timed(200, 2000, 1000)])
    calls = []

    def fake_run(*args):
        calls.append(args)
        return next(results)

    monkeypatch.setattr(pipeline, "_run_candidate", fake_run)
    monkeypatch.setattr(pipeline, "prepare", lambda *a, **k: _Prepared())
    verdict = pipeline._run(pipeline.resolve_task("level1/relu"), None, "cpu",
                            pipeline.get_profile("quick"),
                            Verdict(status="crashed", task="level1/relu", candidate="c.py",
                                    device="cpu"), gpulock.Hold(None))
    assert len(calls) == runs and verdict.status == "passed"
    assert verdict.speedup_vs_eager == (10.0 if runs == 2 else 4.0)
    assert any(w.startswith("implausibly-fast") for w in verdict.warnings) == (runs == 2)


class _Prepared:
    shapes = ("default",)
