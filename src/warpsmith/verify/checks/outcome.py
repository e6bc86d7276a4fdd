"""Turning how the candidate's process ended into a status, before any comparison."""

from __future__ import annotations

from dataclasses import replace

from ...types import Verdict
from ..isolation.sandbox import Outcome
from ..protocol import signal_name
from ..worker_report import WorkerReport, number


def interpret_outcome(outcome: Outcome, report: WorkerReport | str, base: Verdict,
                      cases: int, native: bool = False) -> Verdict | None:
    """A verdict when the process did not finish its work; None when outputs are ready.
    `report`: the outcome's report as worker_report.parse_report read it (a str: why it is none).
    `native`: the candidate is CUDA C++, which can allocate device memory torch never sees."""
    if outcome.timed_out:
        return replace(base, status="timeout",
                       reasons=(_timeout_reason(outcome, report, cases, base),))
    if outcome.malformed:
        return replace(base, status="crashed", reasons=(outcome.malformed,))
    if outcome.report is None:
        return replace(base, status="crashed", reasons=(
            f"the candidate's process ended ({signal_name(outcome.returncode)}) without "
            "reporting; see log_tail",))
    if isinstance(report, str):
        return replace(base, status="crashed", reasons=(f"malformed report: {report}",))
    if report.dynamic_code:  # before its error: the refusal raised in the candidate
        return replace(base, status="rejected", rules=("dynamic-code",), reasons=(
            "Python was compiled from a string while the candidate ran (a library that "
            "pastes strings into source it execs: exec in disguise): "
            + "; ".join(s[:120] for s in report.dynamic_code[:2]),))
    if report.error:
        return _error_verdict(report, base, native)
    if report.stage != "done" or outcome.returncode != 0:
        return replace(base, status="crashed", reasons=(
            f"the candidate's process ended with {signal_name(outcome.returncode)} "
            f"during {report.stage[:100]}",))
    return None


def _timeout_reason(outcome: Outcome, report: WorkerReport | str, cases: int,
                    base: Verdict) -> str:
    """Where the deadline fell: the final report names a stage only once the checked calls
    are over; before that, the outputs that came back say how far it got. A report that
    came back malformed before a hang names nothing (it ended the trusted side with a
    KeyError when it had no stage)."""
    done = len(outcome.collected)
    if isinstance(report, WorkerReport):
        where = report.stage[:100]
    elif done:
        where = f"checked call {done + 1} of {cases} ({done} sent their outputs)" \
            if done < cases else "the work after the checked calls"
    else:
        where = "its start, the candidate's import or its first checked call"
    text = f"the candidate's process passed the deadline ({outcome.seconds:.0f} s) during {where}"
    if base.device == "cpu":  # not stored (pipeline.NOT_STORED): the next run tries again
        text += ("; on the CPU the Triton interpreter runs a kernel far slower than a GPU "
                 "and the machine's load counts, so a correct kernel can run past the "
                 "deadline here")
    return text


def stage_times(report: WorkerReport | str) -> dict[str, float]:
    """The worker's stage times as the verdict keeps them (a diagnostic): none from a
    report that is not well formed (forged times of another type ended the trusted side
    with a TypeError, E28)."""
    return dict(report.stage_seconds) if isinstance(report, WorkerReport) else {}


def _error_verdict(report: WorkerReport, base: Verdict, native: bool = False) -> Verdict:
    """The candidate's process says it raised: its word decides nothing softer than a
    failure of the candidate's (it may own that process and forge the report). A failed
    import is a compile_error; anything later, an out-of-memory included, a runtime_error.
    too_large, needs_gpu and verifier_error come only from the trusted side's own knowledge
    (the memory plan, the device, its own exceptions: pipeline.py, offgpu.py)."""
    error = report.error
    text = f"{error.type} during {report.stage}: {error.message}".strip()
    status = "compile_error" if report.stage == "import" else "runtime_error"
    if error.type in ("SystemExit", "KeyboardInterrupt"):
        status = "crashed"
    elif error.type in ("OutOfMemoryError", "MemoryError"):
        text += _memory_note(base.memory, native)
    return replace(base, status=status, reasons=(text[:1500],),
                   log_tail=error.traceback[-3000:] + "\n" + base.log_tail)


def _memory_note(memory: dict, native: bool) -> str:
    """What the plan gave the candidate's process: a kernel that needs more memory than the
    task's reference would have to say why; the plan's own shortfalls are the trusted
    side's (its out-of-memory errors are too_large)."""
    share = memory.get("plan_candidate_gib")
    if not share or native:
        return " (out of memory in the candidate's process)"
    return (f" (out of memory in the candidate's process; the memory plan gave it about "
            f"{share} GiB, enough for the task's reference with its inputs and outputs)")


def timing_problem(timing, cases: list, shapes) -> str:
    """Why the worker's timing entry cannot be used, or '' when it is sound. It comes from
    the candidate's process: a malformed one is a `crashed` verdict, never an exception.
    `cases`: the prepared cases (probes name them by index); `shapes`: the shapes checked."""
    if not isinstance(timing, dict):
        return "timing is not an object"
    times = timing.get("times_us")
    if not isinstance(times, dict) or not {"candidate", "eager"} <= set(times) or not all(
            isinstance(v, list) and v and all(_positive(t) for t in v) for v in times.values()):
        return "times_us is not a list of positive times per implementation"
    if not isinstance(timing.get("shape"), str) or timing["shape"] not in shapes:
        return "shape is not a checked shape"
    if not isinstance(timing.get("gpu"), str) or not isinstance(timing.get("clocks"), list):
        return "gpu or clocks missing"
    if not all(isinstance(c, dict) for c in timing["clocks"]):
        return "clocks entries are not objects"
    if not isinstance(timing.get("persisting_l2_raised"), int):
        return "persisting_l2_raised is not a count"
    probes, sets = timing.get("probes"), [c for c in cases if c.variant == "timing"]
    if not isinstance(probes, list) or not all(_probe_ok(p, sets) for p in probes):
        return "probes do not name timing sets with their values"
    launches, guarded = timing.get("own_launches"), timing.get("guarded")
    if not isinstance(launches, list) or not all(type(n) is int for n in launches):
        return "own_launches is not a count per timed call"
    if not isinstance(guarded, list) or not all(_guarded_ok(g) for g in guarded):
        return "guarded entries are not records of a watched call"
    if type(timing.get("aliased")) is not int or timing["aliased"] < 0:
        return "aliased is not a count"
    return ""


def _guarded_ok(record) -> bool:
    return isinstance(record, dict) and type(record.get("threads_started")) is int and \
        isinstance(record.get("forbidden_ops"), list) and \
        all(isinstance(op, str) for op in record["forbidden_ops"]) and \
        type(record.get("inputs_modified", False)) is bool


def _positive(value) -> bool:
    return number(value) and 0 < value < 1e12


def _probe_ok(probe, sets: list) -> bool:
    """A probe names one of its block's timing sets (the k-th timing case's positions) and
    gives, per output, as many values as that output has positions (fewer outputs than the
    reference's are the trusted side's to fail), and the shape of every output returned."""
    if not isinstance(probe, dict) or type(probe.get("case")) is not int:
        return False
    index, values, shapes = probe["case"], probe.get("values"), probe.get("shapes")
    if not 0 <= index < len(sets):
        return False
    positions = sets[index].probes
    return isinstance(values, list) and len(values) <= len(positions) and all(
        isinstance(v, list) and len(v) == len(p) and all(number(x) for x in v)
        for v, p in zip(values, positions, strict=False)) and isinstance(shapes, list) and \
        all(isinstance(s, list) and all(type(n) is int for n in s) for s in shapes)

