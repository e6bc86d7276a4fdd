"""What comes back from the candidate's process is untrusted data: every field of a timing
entry is checked on the trusted side, and a malformed one is a reason, never an exception."""

from types import SimpleNamespace

import pytest

from warpsmith.types import Verdict
from warpsmith.verify.checks.outcome import _error_verdict, timing_problem
from warpsmith.verify.worker_report import parse_report

CASES = [SimpleNamespace(variant="base", probes=[]),
         SimpleNamespace(variant="timing", probes=[[3, 7]])]
SOUND = {"times_us": {"candidate": [10.0, 11.0], "eager": [20.0], "compile": [15.0]},
         "shape": "gpu", "gpu": "NVIDIA H200", "clocks": [{"sm_clock_mhz": 1980}],
         "persisting_l2_raised": 0,
         "probes": [{"case": 0, "values": [[0.5, 1.5]], "shapes": [[4, 2]]}],
         "own_launches": [1, 2], "aliased": 0,
         "guarded": [{"forbidden_ops": [], "threads_started": 0, "inputs_modified": False}]}


def test_a_sound_timing_entry_passes():
    assert timing_problem(SOUND, CASES, {"gpu": {}}) == ""


@pytest.mark.parametrize("change", [
    {"times_us": {"candidate": [10.0]}},  # no eager
    {"times_us": {"candidate": [-1.0], "eager": [2.0]}},
    {"times_us": {"candidate": ["fast"], "eager": [2.0]}},
    {"times_us": {"candidate": [], "eager": [2.0]}},
    {"shape": "elsewhere"},
    {"clocks": "hot"},
    {"persisting_l2_raised": "no"},
    {"probes": [{"case": -1, "values": [[0.5, 1.5]], "shapes": [[2]]}]},
    {"probes": [{"case": 1, "values": [[0.5, 1.5]], "shapes": [[2]]}]},  # one set only
    {"probes": [{"case": 0, "values": [[0.5]], "shapes": [[2]]}]},
    {"probes": [{"case": 0, "values": [0.5, 1.5], "shapes": [[2]]}]},  # not per output
    {"probes": [{"case": 0, "values": [[0.5, 1.5]] * 2, "shapes": [[2]]}]},  # 2 of 1
    {"probes": [{"case": 0, "values": [[0.5, 1.5]], "shapes": "4x2"}]},
    {"probes": [{"case": True, "values": [[0.5, 1.5]], "shapes": [[2]]}]},
    {"probes": "none"},
    {"own_launches": [1.5]},
    {"own_launches": None},
    {"guarded": [{"forbidden_ops": [3], "threads_started": 0}]},
    {"guarded": [{"forbidden_ops": []}]},
    {"aliased": -1},
    {"aliased": None},
], ids=lambda c: next(iter(c)))
def test_a_malformed_timing_entry_is_named(change):
    assert timing_problem(SOUND | change, CASES, {"gpu": {}}) != ""


def test_not_a_dict_at_all():
    assert timing_problem([1, 2], CASES, {"gpu": {}}) != ""


def _oom(stage: str, memory: dict, native: bool = False, request: int | None = 1 << 20,
         kind: str = "OutOfMemoryError"):
    """`request`: the bytes the worker's allocator observer saw fail (None: it saw none)."""
    base = Verdict(status="crashed", task="t", candidate="c", device="cuda", memory=memory)
    report = {"stage": stage, "error": {"type": kind, "traceback": "",
                                        "message": "CUDA out of memory"}}
    if request is not None:
        report["oom_request_bytes"] = request
    return _error_verdict(parse_report(report, 0), base, native)


WITHIN = {"plan_candidate_gib": 40.0, "candidate_peak_gib": 32.3}


def test_the_workers_word_on_memory_is_never_the_machines_limit():
    """Issue 31: the candidate may own its process and forge its report: an out-of-memory
    it reports, at any stage, is its own failure with the plan's share said beside it;
    too_large comes only from the trusted side's plan and its own allocations."""
    v = _oom("forward", WITHIN)
    assert v.status == "runtime_error" and "40.0 GiB" in v.reasons[0]
    assert _oom("inputs", WITHIN).status == "runtime_error"
    assert _oom("setup", {}, request=None).status == "runtime_error"


def test_out_of_memory_beyond_the_plan_or_without_one_is_the_candidates():
    assert _oom("forward", {"plan_candidate_gib": 4.0, "candidate_peak_gib": 30.0}).status \
        == "runtime_error"
    assert _oom("forward", {}).status == "runtime_error"
    # CUDA C++ can cudaMalloc what torch never counts: an OOM it caused stays its own
    assert _oom("forward", {"plan_candidate_gib": 40.0, "candidate_peak_gib": 1.0},
                native=True).status == "runtime_error"


def test_a_faked_or_provoked_out_of_memory_is_the_candidates():
    """E48: an OutOfMemoryError the allocator never saw fail (raised by the candidate, or a
    class of its own by that name), a request of its own far beyond its share, or memory it
    held from an earlier call so that the next call's inputs did not fit."""
    assert _oom("forward", WITHIN, request=None).status == "runtime_error"
    assert _oom("forward", WITHIN, request=1 << 50).status == "runtime_error"
    assert _oom("forward", WITHIN, request=True).status == "runtime_error"
    assert _oom("inputs", {"plan_candidate_gib": 4.0, "candidate_peak_gib": 30.0}).status \
        == "runtime_error"
    assert _oom("inputs", WITHIN, request=None).status == "runtime_error"


def test_a_timeout_says_how_far_the_calls_got_and_on_the_cpu_whose_limit_it_may_be():
    from warpsmith.verify.checks.outcome import interpret_outcome
    from warpsmith.verify.isolation.sandbox import Outcome

    late = Outcome(returncode=None, timed_out=True, report=None, log_tail="", seconds=301.4,
                   collected=((), (), ()))
    cpu = Verdict(status="passed", task="t", candidate="c", device="cpu")
    v = interpret_outcome(late, "no report", cpu, cases=8)
    assert v.status == "timeout"
    assert "(301 s) during checked call 4 of 8 (3 sent their outputs)" in v.reasons[0]
    assert "interpreter" in v.reasons[0]
    early = Outcome(returncode=None, timed_out=True, report=None, log_tail="", seconds=60.0)
    v = interpret_outcome(early, "no report", replace_device(cpu, "cuda"), cases=8)
    assert "its start" in v.reasons[0] and "interpreter" not in v.reasons[0]


def replace_device(v: Verdict, device: str) -> Verdict:
    from dataclasses import replace

    return replace(v, device=device)


def test_identical_failures_are_one_line_with_their_count():
    from warpsmith.types import CaseResult
    from warpsmith.verify.pipeline import _failure_lines

    shape_wrong = [CaseResult("cpu", "base", False, problem="output shape (1,), expected ()")
                   for _ in range(5)]
    other = [CaseResult("cpu~", "scaled", False, problem=f"{k} elements differ")
             for k in range(4)]
    lines = _failure_lines(shape_wrong + other, total=12)
    assert lines == ("shape cpu (base inputs): output shape (1,), expected () (5 checks)",
                     "shape cpu~ (scaled inputs): 0 elements differ",
                     "shape cpu~ (scaled inputs): 1 elements differ",
                     "… and 2 more failing checks of 12")


@pytest.mark.parametrize("times", [7, "slow", [1, 2], {"import": "x"}, {"a": -1.0},
                                   {str(i): 1.0 for i in range(100)}])
def test_forged_stage_times_are_left_out_and_the_report_is_malformed(times):
    """E28: stage_seconds that were not an object of numbers were merged into the trusted
    side's own times before the report was judged, and the TypeError ended the verifier."""
    from warpsmith.verify.checks.outcome import stage_times

    report = parse_report({"stage": "done", "error": None, "stage_seconds": times}, 0)
    assert report == "stage_seconds is not an object of times"
    assert stage_times(report) == {}
    sound = {"stage": "import", "stage_seconds": {"import": 1.5},
             "error": {"type": "E", "message": "", "traceback": ""}}
    assert stage_times(parse_report(sound, 0)) == {"import": 1.5}


def test_outputs_already_wrong_outrank_a_timeout_or_crash():
    """E65 (red team, round 5): wrong on call 0, then a hang: `timeout` (not stored, retried,
    "a correct kernel can run past the deadline here"); the trusted side's comparison comes
    first."""
    from warpsmith.types import CaseResult, Verdict
    from warpsmith.verify.pipeline import _wrong_first

    base = Verdict(status="timeout", task="t", candidate="c.py", device="cpu",
                   reasons=("passed the deadline",))
    wrong = ((CaseResult("small", "base", ok=False, problem="differs"),),)
    right = ((CaseResult("small", "base", ok=True),),)
    assert _wrong_first(base, wrong).status == "incorrect"
    assert _wrong_first(base, right).status == "timeout"
    rejected = Verdict(status="rejected", task="t", candidate="c.py", device="cpu")
    assert _wrong_first(rejected, wrong).status == "rejected"  # never a softer one


def test_a_failed_import_reported_after_outputs_arrived_is_no_compile_error():
    """Red-team round of 2026-12-05: a process that owned itself sent wrong outputs, then
    forged a report saying its import failed, and got `compile_error`. Outputs mean the
    import ran: wrong ones make it `incorrect`, right ones a forged report (`crashed`)."""
    from warpsmith.types import CaseResult, Verdict
    from warpsmith.verify.pipeline import _wrong_first

    forged = Verdict(status="compile_error", task="t", candidate="c.py", device="cpu",
                     reasons=("ImportError during import",))
    wrong = ((CaseResult("small", "base", ok=False, problem="differs"),),)
    right = ((CaseResult("small", "base", ok=True),),)
    assert _wrong_first(forged, wrong).status == "incorrect"
    assert _wrong_first(forged, right).status == "crashed"
    assert _wrong_first(forged, ()).status == "compile_error"  # nothing ran: an import
