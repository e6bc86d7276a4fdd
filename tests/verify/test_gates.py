from dataclasses import replace

from warpsmith.tasks import resolve_task
from warpsmith.types import Timing, Verdict
from warpsmith.verify.gates import apply_gates

TASK = resolve_task("level1/relu")


def _timed(cand_us, eager_us, compile_us, peak_floor_us=100.0):
    timings = (Timing("candidate", cand_us, cand_us, cand_us, 0, 25),
               Timing("eager", eager_us, eager_us, eager_us, 0, 25),
               Timing("compile", compile_us, compile_us, compile_us, 0, 25))
    return Verdict(status="passed", task=TASK.name, candidate="c.py", device="cuda",
                   correct=True, timing_measured=True, timings=timings,
                   speedup_vs_eager=eager_us / cand_us, speedup_vs_compile=compile_us / cand_us,
                   peak_floor_us=peak_floor_us)


def test_plausible_result_stays_passed():
    assert apply_gates(_timed(500, 1000, 600), TASK).status == "passed"


def test_below_the_dense_floor_is_flagged_never_rejected_for_being_fast():
    """Issue 31: a kernel that exploits its inputs' structure (KernelBench level1/14, a
    triangular matmul, on the trusted clock) beats the dense op's floor honestly."""
    verdict = apply_gates(_timed(90, 110, 105), TASK)
    assert verdict.status == "passed" and verdict.rules == ()
    assert any(w.startswith("below-dense-floor") for w in verdict.warnings)


def test_implausible_speedups_are_suspect_until_accepted():
    far = _timed(150, 2000, 1000)  # 13× eager, 6.7× compile
    held = apply_gates(far, TASK)
    assert held.status == "suspect" and any("--accept-suspect" in r for r in held.reasons)
    assert apply_gates(far, TASK, accept_suspect=True).status == "passed"


def test_untimed_and_failed_verdicts_are_untouched():
    untimed = replace(_timed(50, 1000, 600), timing_measured=False)
    assert apply_gates(untimed, TASK).status == "passed"
    failed = replace(_timed(50, 1000, 600), status="incorrect")
    assert apply_gates(failed, TASK).status == "incorrect"


def test_a_slow_torch_compile_is_no_ground_for_suspicion():
    """KernelBench level1/83 on the H200: compile 5× slower than eager, the honest depthwise
    kernel 0.91× eager, 4.6× compile: held as suspect. The faster baseline counts."""
    assert apply_gates(_timed(1588, 1449, 7266, peak_floor_us=200), TASK).status == "passed"
    assert apply_gates(_timed(400, 1449, 7266, peak_floor_us=200), TASK).status == "suspect"
