"""verify/worker_report: the worker's last frame is read once into a frozen record; a report
that is not well formed is a reason (the verdict `crashed`), never an exception on the
trusted side, whatever the candidate's process wrote into it."""

import dataclasses

import pytest

from warpsmith.types import Verdict
from warpsmith.verify.checks.outcome import interpret_outcome
from warpsmith.verify.isolation.sandbox import Outcome
from warpsmith.verify.worker_report import WorkerReport, parse_report

CALLS = 2
SOUND = {"stage": "done", "error": None, "stage_seconds": {"import": 0.5},
         "dynamic_code": [], "kernels": [[["relu_kernel", True]], [["relu_kernel", True]]],
         "threads_started": [0, 0], "forbidden_ops": [[], []], "inputs_modified": [],
         "aliased": [], "bad_outputs": [], "poison_off": [], "gpu_kernels": [],
         "tampered": [], "built": 3, "autotune_unrun": [],
         "timing": {"persisting_l2_raised": 0}}


def test_a_sound_report_is_read_into_the_record():
    report = parse_report(SOUND, CALLS)
    assert isinstance(report, WorkerReport)
    assert report.kernels == ((("relu_kernel", True),), (("relu_kernel", True),))
    assert report.stage_seconds == (("import", 0.5),) and report.built == 3
    assert report.l2_raised == 0 and report.error is None and report.peak_bytes is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.stage = "forward"


@pytest.mark.parametrize("change", [
    {"stage": None},
    {"stage_seconds": {"import": "slow"}},
    {"dynamic_code": "exec"},
    {"kernels": None},
    {"kernels": [[["k", True]]]},  # one call of two
    {"kernels": [[["k"]], [["k", True]]]},
    {"threads_started": [0, "none"]},
    {"threads_started": [0, True]},
    {"forbidden_ops": [[1], []]},
    {"gpu_kernels": [[["k", -1.0]]]},
    {"gpu_kernels": [[["k", "fast"]]]},
    {"inputs_modified": ["all"]},
    {"aliased": None},
    {"poison_off": [[0]]},
    {"error": "it broke"},
    {"error": {"type": "E", "message": 3, "traceback": ""}},
], ids=lambda c: f"{next(iter(c))}={str(next(iter(c.values())))[:20]}")
def test_a_malformed_report_is_named(change):
    assert isinstance(parse_report(SOUND | change, CALLS), str)


def test_an_error_report_is_read_without_its_per_call_lists():
    raw = {"stage": "forward", "built": 1,
           "error": {"type": "RuntimeError", "message": "boom", "traceback": "t"}}
    report = parse_report(raw, CALLS)
    assert report.error.type == "RuntimeError" and report.kernels == ()


def test_diagnostics_of_the_wrong_type_are_left_out_not_trusted():
    report = parse_report(SOUND | {"built": "many", "peak_bytes": -5, "timing": [],
                                   "autotune_unrun": "all", "tampered": ["x" * 10**5]},
                          CALLS)
    assert report.built == 0 and report.peak_bytes is None and report.l2_raised is None
    assert report.autotune_unrun == () and len(report.tampered[0]) == 200


@pytest.mark.parametrize("raw", [{"frame": "mine"}, {"stage": ["x"]}, {"stage": "x" * 5000}])
def test_a_forged_report_before_a_hang_is_a_timeout_not_an_exception(raw):
    """A worker that wrote a last frame of its own making and then did not end: the
    timeout's reason read the report's stage unchecked (a KeyError on the trusted side)."""
    hung = Outcome(returncode=None, timed_out=True, report=raw, log_tail="", seconds=30.0)
    base = Verdict(status="passed", task="t", candidate="c", device="cuda")
    v = interpret_outcome(hung, parse_report(raw, CALLS), base, CALLS)
    assert v.status == "timeout" and len(v.reasons[0]) < 400


@pytest.mark.parametrize("change,status", [
    ({"stage": "forward"}, "crashed"),
    ({"dynamic_code": ["exec('x')"]}, "rejected"),
    ({"stage": "import", "error": {"type": "SyntaxError", "message": "m", "traceback": ""}},
     "compile_error"),
    ({"error": {"type": "SystemExit", "message": "", "traceback": ""}}, "crashed"),
    ({"kernels": []}, "crashed"),
])
def test_what_the_report_says_decides_only_a_failure(change, status):
    ended = Outcome(returncode=0, timed_out=False, report=SOUND | change, log_tail="",
                    seconds=1.0)
    base = Verdict(status="passed", task="t", candidate="c", device="cpu")
    assert interpret_outcome(ended, parse_report(ended.report, CALLS), base,
                             CALLS).status == status
    sound = Outcome(returncode=0, timed_out=False, report=SOUND, log_tail="", seconds=1.0)
    assert interpret_outcome(sound, parse_report(SOUND, CALLS), base, CALLS) is None
