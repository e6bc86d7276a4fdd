"""The Verdict's timing: every implementation's samples on the trusted side's clock
(baselines.py), the values read from the candidate's timed outputs checked against the
reference, and the candidate's own in-process times beside them as a diagnostic."""

from __future__ import annotations

import statistics
from dataclasses import replace

import torch

from ...tasks.counting import count_cost
from ...tasks.gpus import roofline_floor
from ...types import CaseResult, Floor, Task, Timing, Verdict
from ..checks.correctness import compare
from ..checks.outcome import timing_problem
from ..checks.reference import Prepared, timing_case
from ..worker_report import WorkerReport


def summarise(name: str, samples: list[float]) -> Timing:
    q = statistics.quantiles(samples, n=4) if len(samples) > 1 else [samples[0]] * 3
    return Timing(name, statistics.median(samples), min(samples), max(samples),
                  q[2] - q[0], len(samples))


def timing_fields(timing: dict, floor: Floor | None, peak: Floor | None) -> dict:
    """The Verdict's timing fields from the worker's raw samples."""
    timings = {n: summarise(n, s) for n, s in timing["times_us"].items()}
    cand = timings["candidate"].median_us
    compiled = [t.median_us for n, t in timings.items() if n.startswith("compile")]
    floor_us = floor.seconds * 1e6 if floor else None
    return {
        "timing_measured": True,
        "timings": tuple(timings.values()),
        "timed_shape": timing["shape"],
        "speedup_vs_eager": timings["eager"].median_us / cand,
        "speedup_vs_compile": min(compiled) / cand if compiled else None,
        "floor_us": floor_us,
        "peak_floor_us": peak.seconds * 1e6 if peak else None,
        "roofline_fraction": floor_us / cand if floor_us else None,
    }


def timing_verdict(verdict: Verdict, baselines, report: WorkerReport, task: Task,
                   prepared: Prepared, triton: bool = True) -> Verdict:
    """A passed verdict with its timing, or the verdict the timing turns it into: the
    candidate's samples and probes came from its process and are checked here first.
    `baselines`: the trusted side's timer (baselines.py), None where nothing is timed.
    `triton`: a Triton candidate, whose every timed call must launch one of its kernels
    (where the launch hook saw those of every checked call)."""
    if verdict.status != "passed":
        return verdict
    if baselines is None:
        return replace(verdict, reasons=("correct on every checked shape; timing not measured "
                                         "on the CPU interpreter",))
    if baselines.too_large:
        return replace(verdict, status="too_large", correct=False, reasons=(
            f"correct on every checked shape, but {baselines.too_large}: the verifier's "
            "limit on this machine, not the candidate's",))
    notes = verdict.warnings + tuple(baselines.notes)
    timing = baselines.timing(report.l2_raised)
    if timing is None or "eager" not in timing["times_us"]:
        return replace(verdict, warnings=notes, reasons=(
            "correct on every checked shape; timing not measured: eager PyTorch could not be "
            "timed here",))
    problem = timing_problem(timing, prepared.cases, prepared.shapes) or (
        "" if timing["complete"] else "the timing blocks ended early")
    if problem:
        return replace(verdict, status="crashed", correct=False, reasons=(
            f"malformed timing report from the candidate's process: {problem}",))
    if timing.get("persisting_l2_raised"):
        return replace(verdict, status="rejected", correct=False, rules=("persisting-l2",),
                       reasons=("the candidate raised the persisting-L2 limit while timed: data "
                                "kept in L2 across calls would not be read from memory",))
    # The launch hook is the witness of timed calls only where it saw every checked call's
    # kernels too: on a GPU, a kernel launched through its compiled handle (warmup()) runs
    # past the hook, and only the profiler saw it execute
    witness = triton and all(any(own for _, own in call) for call in report.kernels)
    rules = timed_problems(timing, witness)
    if rules:
        return replace(verdict, status="rejected", correct=False, rules=tuple(
            dict.fromkeys(r for r, _ in rules)), reasons=tuple(why for _, why in rules))
    bad = [r for r in _check_probes(timing, prepared, task, baselines.device) if not r.ok]
    if bad:
        return replace(verdict, status="incorrect", correct=False, cases=verdict.cases + tuple(
            bad[:3]), reasons=(f"{len(bad)} timed calls returned wrong values: the kernel "
                               "behaves differently while it is timed",))
    cost, gpu = count_cost(task, timing["shape"]), gpu_key(timing["gpu"])
    floors = roofline_floor(cost, task, gpu), roofline_floor(cost, task, gpu, peak=True)
    env = verdict.environment | {"clocks": timing["clocks"], "clock": _clocks(timing)}
    notes += _disagreement(env["clock"])
    return replace(verdict, environment=env, warnings=notes,
                   **timing_fields(timing, *floors))


def _clocks(timing: dict) -> dict:
    """The candidate's time per call on the trusted side's clock (the verdict's) beside the
    one its own process measured (CUDA events around each block: a diagnostic)."""
    inprocess = timing.get("inprocess_us") or []
    phases = timing.get("phases") or []
    return {"trusted_us": statistics.median(timing["times_us"]["candidate"]),
            "in_process_us": statistics.median(inprocess) if inprocess else None,
            "calls_per_block": timing.get("calls_per_block"),
            # per block, medians: the worker's calls and synchronize, its work after them
            # up to the frame, the pipes' transit (what the trusted clock adds)
            "block_phases_us": {k: statistics.median(p[k] for p in phases)
                                for k in phases[0]} if phases else None,
            # the baselines' own process: its start-up, and how long the timing waited for it
            "baselines_startup_s": timing.get("baselines_startup_s")}


def _disagreement(clock: dict) -> tuple[str, ...]:
    """A large gap between the two clocks is reported: the trusted one counts a pipe's round
    trip and a synchronize per block beside the calls, so it reads a little above the
    other; far below it means the in-process figure is not a measurement."""
    trusted, own = clock["trusted_us"], clock["in_process_us"]
    if not own or 0.7 <= own / trusted <= 1.0 / 0.7:
        return ()
    return (f"the candidate's process measured {own:.1f} us per call, the trusted side's "
            f"clock {trusted:.1f} us: the verdict uses the trusted side's",)


def timed_problems(timing: dict, triton: bool) -> list[tuple[str, str]]:
    """The checked calls' dynamic rules, applied to the timed ones: a kernel that does other
    work once it is timed (the NaN fill is off then: it can tell) is caught by the watched
    call hidden in every block, and by the launch count of every timed call."""
    found = []
    if triton and not all(timing["own_launches"]):
        found.append(("no-kernel-ran", "a timed call launched none of the candidate's own "
                      "Triton kernels: what was timed is not what was checked"))
    ops = sorted({op for g in timing["guarded"] for op in g["forbidden_ops"]})
    if ops:
        found.append(("forbidden-op", "forward did what the task does not allow while timed "
                      f"(what was timed is not what was checked): {', '.join(ops[:8])}"))
    if any(g["threads_started"] for g in timing["guarded"]):
        found.append(("thread-started", "forward started a thread while timed"))
    if timing["aliased"]:
        found.append(("output-aliases-input", f"{timing['aliased']} timed calls returned an "
                      "output in an input's memory (what was timed is not what was checked)"))
    if any(g.get("inputs_modified") for g in timing["guarded"]):
        found.append(("inputs-modified", "a timed call wrote into its inputs (what was timed "
                      "is not what was checked)"))
    return found


def _check_probes(timing: dict, prepared: Prepared, task: Task,
                  device: str) -> list[CaseResult]:
    """Each probe against the reference of its call's own fresh set (baselines.py draws a
    seed per timed call), evaluated now, one at a time: the timing's memory is let go by
    then. The positions are those of the timing cases, taken in turn."""
    sets = [c for c in prepared.cases if c.variant == "timing"]
    results = []
    for probe in timing["probes"]:
        seed = timing["block_seeds"][probe["block"]][probe["call"]]
        case = timing_case(task, prepared, seed, sets[probe["case"]], device)
        results += _check_probe(probe, case, task)
    return results


def _check_probe(probe: dict, case, task: Task) -> list[CaseResult]:
    if probe["shapes"] != case.out_shapes or len(probe["values"]) != len(case.ref):
        return [CaseResult(case.shape, "timed", ok=False, problem=(
            f"a timed call returned outputs of shapes {str(probe['shapes'])[:200]}, "
            f"the reference {case.out_shapes}"))]
    results = []
    for values, exact, ref in zip(probe["values"], case.exact, case.ref, strict=True):
        got = torch.tensor(values, dtype=torch.float64, device=ref.device).to(ref.dtype)
        results.append(compare(got, exact, ref, case.shape, "timed", task.tolerance))
    return results


def gpu_key(device_name: str) -> str | None:
    from ...tasks.gpus import GPUS

    return next((k for k in GPUS if k in device_name.upper()), None)
