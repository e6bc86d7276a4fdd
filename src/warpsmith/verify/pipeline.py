"""verify(): static scan → reference → candidate process → comparison → timing → gates.

Each stage is a named function; a candidate's failure is a Verdict, never an exception.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import io
import json
import platform
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from .. import __version__
from ..config import VerifyProfile, gpu_shared, worker_environment
from ..config import profile as get_profile
from ..errors import UsageError
from ..lang import cuda
from ..tasks import admission
from ..tasks.counting import count_cost
from ..tasks.suite import resolve_task
from ..types import Task, Verdict
from . import static
from .checks import collect, gpukernels, memcheck, memplan, offgpu
from .checks.outcome import interpret_outcome, stage_times
from .checks.reference import Prepared, checked, prepare
from .feedback import feedback_text
from .isolation import gpulock, jail, prestart
from .isolation.sandbox import run_worker
from .protocol import Job, job_message
from .timing import baseline_process, gates
from .timing import baselines as baseline_timer
from .timing.baseline_process import BaselineProcess
from .timing.summary import timing_verdict
from .worker_report import WorkerReport, parse_report

# In every cache key: 4 since timed calls are watched and get fresh inputs (a verdict of 3
# may have passed a kernel that is caught now); 5 since constant parameters get secret values
# and CPU verdicts of device queries and unrun autotune configs are needs_gpu (E14, E50, E51);
# 6 since KernelBench files get a secret twin (E13) and CUDA-only runtime errors on the CPU
# are needs_gpu; 7 since a generator's compile with a lying name is refused, file writers and
# str subclasses with methods are rejected, and needs_gpu from a runtime error needs that
# nothing ran on the CPU before it (E52-E54); 10 since the trusted side hands inputs over per
# call, reads the outputs and times every implementation on its own clock (issue 31); 11
# since an implausibly fast result is measured again and flagged, never `suspect`; 13 since
# lanes of one program meeting on an address with no barrier are refused (E107), a GPU
# output's non-contiguous copy is held until read, and norms are summed scaled (no underflow);
# 14 since a file whose coding cookie names another codec is read as UTF-8 (the codec never
# runs, E109) and a source past 256 KiB is refused unread (source-too-large, E110); 15 since
# the memory plan counts the baselines' process warming up beside the checks, which is ended
# before a candidate is blamed for an out-of-memory, and verifications may share a GPU; 16
# since that process warms up after the checks where the plan does not fit with it beside
# them, a library's hidden workspace is guessed only where the forward calls one, and on a
# GPU the worker keeps no copy of its inputs (too_large verdicts may now pass)
VERIFIER_VERSION = "16"
# Verdicts about this machine, not the candidate: never stored, so another machine (or a
# later run with more memory) verifies again instead of finding them in the cache.
MACHINE_LIMITS = frozenset({"too_large"})
# A timeout may be the machine's (a loaded CPU) as well as the candidate's: not kept either,
# so the next run decides again instead of finding it in the cache.
NOT_STORED = MACHINE_LIMITS | {"timeout"}
# The timing protocol on the CPU too (perf_counter times, no L2 flush): for tests of the
# protocol and of attacks on it (tests/verify/test_redteam_timing.py). A CPU verdict's
# speedups mean nothing; the CLI never sets this.
TIME_ON_CPU = False


def timed_here(device: str) -> bool:
    return device == "cuda" or TIME_ON_CPU


def verify(task: Task | str, candidate: Path | str, device: str | None = None,
           profile: str | VerifyProfile = "quick", store=None, use_cache: bool = True,
           require_sandbox: bool = False) -> Verdict:
    """`require_sandbox`: a UsageError where no OS sandbox can be had (jail.py), instead of
    a verdict that says `sandbox: none`."""
    if require_sandbox:
        jail.require()
    task = resolve_task(task) if isinstance(task, str | Path) else task
    candidate = Path(candidate)
    if not candidate.is_file():
        raise UsageError(f"no candidate file {candidate}")
    with candidate.open("rb") as f:  # read once: the scan and the worker get these bytes
        data = f.read(static.MAX_SOURCE_BYTES + 1)  # a larger file is never read whole
    if len(data) > static.MAX_SOURCE_BYTES:
        return _unread(task, candidate, device, "rejected", static.too_large(
            f"more than {static.MAX_SOURCE_BYTES} bytes"), rules=(static.TOO_LARGE,))
    try:
        source = static.decode(data)  # as the import decodes them (its cookie, a BOM)
    except SyntaxError as e:  # a verdict, not an exception: a service goes on
        return _unread(task, candidate, device, "compile_error",
                       f"the candidate file is not Python source text ({str(e)[:200]})")
    prof = get_profile(profile) if isinstance(profile, str) else profile
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    base = Verdict(status="crashed", task=task.name, candidate=str(candidate), device=device,
                   environment=environment(device))
    key = cache_key(task, source, device, prof, base.environment)
    if store is not None and use_cache and (hit := store.get(key)) is not None:
        return replace(hit, cached=True, candidate=str(candidate))  # as given, as below
    scan = _scan(task, source, device)
    base, src = replace(base, cache_key=key), Source(candidate, data, source, scan.language)
    # the static stages need no GPU: a rejection never waits for another verification's
    verdict = _static_verdict(scan, base, device, source, prof)
    if verdict is None:
        verdict = _held_run(task, src, device, prof, replace(base, warnings=tuple(
            str(f) for f in scan.warnings)))
    if not jail.current().ok:  # never silently weaker
        verdict = replace(verdict, warnings=verdict.warnings + (
            f"no OS sandbox: {jail.current().detail}",))
    verdict = replace(verdict, feedback=feedback_text(verdict))
    if store is not None and verdict.status not in NOT_STORED:  # a relative path names no
        store.put(replace(verdict, candidate=str(candidate.absolute())))  # file for a reader
    return verdict  # elsewhere (MCP's find_kernels, started in another folder)


@dataclass(frozen=True)
class Source:
    """The candidate as read once: its path (for names), its bytes (what the worker gets) and
    their text as Python's import decodes it (what the scan reads)."""

    path: Path
    data: bytes
    text: str
    language: str = "none"  # the scan's: "triton", "cuda" or "none" (scanned once)


def _held_run(task, candidate: Source, device, prof, base) -> Verdict:
    """Everything after the static scan, under the GPU's hold (gpulock.py): alone from the
    start, or, where the executor shares the GPU (config.gpu_shared), shared while the cases
    are prepared and checked and alone while timed. A verdict the load may have decided
    while another verification held the GPU too is not the candidate's: it is run again with
    the GPU to itself, and that verdict stands."""
    with gpulock.held(device, alone=not gpu_shared()) as hold:
        verdict = _guarded_run(task, candidate, device, prof, base, hold)
    if hold.crowded and decided_by_load(verdict, hold.went_alone):
        first = verdict
        with gpulock.held(device, alone=True) as hold:
            verdict = _guarded_run(task, candidate, device, prof, base, hold)
        verdict = replace(verdict, warnings=verdict.warnings + (
            f"run again with the GPU to itself: beside other verifications it was "
            f"{first.status}",))
    if hold.fell_back:
        verdict = replace(verdict, warnings=verdict.warnings + (
            f"{hold.fell_back}: verifications in this process took turns, but another "
            "process's may have run beside this one's timing",))
    return verdict


# What a verdict that memory decided says (outcome._error_verdict, collect.blame_if_held, a
# library's own "CUDA error: out of memory")
MEMORY_HINTS = ("outofmemoryerror", "memoryerror during", "out of memory",
                "gib of gpu memory beyond its share")


def decided_by_load(verdict: Verdict, went_alone: bool = False) -> bool:
    """A verdict another verification on the GPU may have decided: too_large (the trusted
    side's own plan, made against their memory), or, while the GPU was still shared
    (`went_alone` False: the verdict came before this verification took it alone), a
    timeout (their kernels and compiles beside ours) or a failure that memory ran out for.
    Those words come from the candidate's process as often as not: said while alone (where
    the others' memory was reserved and counted), they would buy a candidate a second
    timing, a re-roll of its speedup (red-team round of 2026-12-08); said while shared, one
    more run, alone, whose verdict stands, before any timing of the trusted side's."""
    if verdict.status == "too_large":
        return True
    if went_alone:
        return False
    return verdict.status == "timeout" or verdict.status in (
        "runtime_error", "crashed", "compile_error") and any(
        hint in r.lower() for r in verdict.reasons for hint in MEMORY_HINTS)


def _guarded_run(task, candidate: Source, device, prof, base, hold) -> Verdict:
    try:
        return _run(task, candidate, device, prof, base, hold)
    except (torch.OutOfMemoryError, MemoryError) as e:  # the plan's estimate fell short
        return replace(base, status="too_large", reasons=(
            f"the verifier ran out of memory holding the task's cases ({type(e).__name__}); "
            "this is the verifier's limit on this machine, not the candidate's",))
    finally:
        if device == "cuda":  # the reference's memory handed back before the next one
            gc.collect()  # plans against the free memory
            torch.cuda.empty_cache()


def _unread(task: Task, candidate: Path, device: str | None, status: str, reason: str,
            rules: tuple[str, ...] = ()) -> Verdict:
    """A verdict on the file before its text exists (not Python source text, too large)."""
    verdict = Verdict(status=status, task=task.name, candidate=str(candidate),
                      device=device or "cpu", reasons=(reason,), rules=rules)
    return replace(verdict, feedback=feedback_text(verdict))


def _scan(task: Task, source: str, device: str) -> static.Scan:
    scan = static.scan(source)
    if device == "cpu" and task.dtype == "float32" and not task.allow_tf32:
        # the interpreter multiplies exactly where a GPU's tl.dot defaults to TF32: only
        # the scan can see that a kernel passing here would fail a strict-fp32 task there
        scan = replace(scan, findings=scan.findings + tuple(static.tf32_dots(source)))
    return scan


def _run(task, candidate: Source, device, prof, base, hold: gpulock.Hold) -> Verdict:
    """Everything after the static scan (passed), under the GPU's hold."""
    if device == "cuda" and not torch.cuda.is_available():
        return replace(base, status="needs_gpu", reasons=("--device cuda, but no GPU is here",))
    try:
        task, shapes, skipped, notes = choose_shapes(task, device, prof)
        # another task's kept baselines' process gives its memory back before the plan,
        # whatever this verification's profile
        baseline_process.KEPT.keep_only(task, shapes, prof, device)
        mem = _planned(task, shapes[-1], prof, device, hold)
    except (admission.TooLarge, memplan.TooLarge) as e:
        return replace(base, status="too_large", reasons=(str(e),),
                       shapes_skipped=tuple(s.name for s in task.shapes))
    if mem.cuts:
        notes.append(f"memory plan: {'; '.join(mem.cuts)}")
    prof = mem.profile
    base = replace(base, memory={k: collect.gib(v) for k, v in (
        ("plan_gib", mem.needed), ("budget_gib", mem.budget),
        ("plan_trusted_gib", mem.trusted), ("plan_candidate_gib", mem.candidate),
        ("plan_baselines_gib", mem.baselines))})
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    start = time.perf_counter()
    prepared = prepare(task, shapes, prof, device, timed=timed_here(device))
    if device == "cuda":  # what the reference's first calls cached is the worker's to use
        torch.cuda.empty_cache()
    stages = {"reference": time.perf_counter() - start}
    base = replace(base, shapes_checked=tuple(prepared.shapes), shapes_skipped=tuple(skipped),
                   warnings=base.warnings + tuple(notes))
    run = (task, candidate, device, prof, prepared, base, hold)
    verdict = _run_candidate(*run, dict(stages), mem)
    if gates.implausible(verdict):  # never rejected for being fast: measured again
        verdict = gates.remeasured(verdict, _run_candidate(*run, dict(stages), mem))
    verdict = gates.apply_gates(verdict)
    if device == "cuda" and prof.memcheck and verdict.status == "passed":
        verdict = memory_safety(task, candidate, verdict)
    return verdict


def _planned(task, shape: str, prof, device: str, hold: gpulock.Hold) -> memplan.Plan:
    """The memory plan, reserved beside the other verifications on the GPU. Where it would be
    cut, not fit, or not fit beside their reservations, the GPU is taken alone first; and
    alone, until it fits beside those still waiting to be timed (who keep their memory),
    they go first. A plan, and so a verdict, must not depend on the load."""
    # sharing: the timing blocks sized as alone; one at a time, as before there was sharing
    quiet = hold.quiet(memplan.available(device)) if hold.mode == "shared" else None
    if hold.mode == "shared":
        try:
            mem = memplan.plan(task, shape, prof, device, quiet)
            if not mem.cuts and mem.needed and hold.admit(mem.needed, mem.budget):
                return mem
        except memplan.TooLarge:
            pass
        hold.exclusive()
    while True:  # exclusive: no one registers meanwhile, those registered wait to be timed
        # alone in memory: the others registered hold no reservation (they plan, or wait for
        # the lock): two whose plans never fit let each other first forever otherwise (the
        # red-team round of 2026-12-08)
        alone = hold.others_reserved() == 0
        try:
            mem = memplan.plan(task, shape, prof, device, quiet)
        except memplan.TooLarge:
            if alone:
                raise
        else:
            if hold.admit(mem.needed, mem.budget) or alone:
                return mem
        hold.let_others_first()


def memory_safety(task, candidate: Source, verdict: Verdict) -> Verdict:
    """compute-sanitizer's memcheck over one more forward at the first checked shape: an
    out-of-bounds access is `runtime_error`, named; where it cannot run, a warning says the
    GPU's memory safety was not judged."""
    found = memcheck.check(task, candidate.data, verdict.shapes_checked[0])
    if not found.ran:
        return replace(verdict, warnings=verdict.warnings + (
            f"memory safety not judged on the GPU: {found.why_not}",))
    if found.findings:
        return replace(verdict, status="runtime_error", correct=False, reasons=tuple(
            f"compute-sanitizer memcheck: {f}" for f in found.findings) + (
            "the outputs compared equal, but a kernel read or wrote outside its tensors",))
    return replace(verdict, warnings=verdict.warnings + (
        "memcheck: no out-of-bounds access in one forward (compute-sanitizer)",))


def _static_verdict(scan: static.Scan, base: Verdict, device: str,
                    source: str, prof: VerifyProfile) -> Verdict | None:
    if scan.syntax_error:
        return replace(base, status="compile_error",
                       reasons=(f"syntax error, {scan.syntax_error}",))
    if any(f.rule == "no-modelnew" for f in scan.rejected):
        return replace(base, status="compile_error", reasons=("defines no class ModelNew",),
                       rules=("no-modelnew",))
    if scan.rejected:
        return replace(base, status="rejected", reasons=tuple(str(f) for f in scan.rejected),
                       rules=tuple(dict.fromkeys(f.rule for f in scan.rejected)),
                       warnings=tuple(str(f) for f in scan.warnings))
    if scan.language == "cuda" and device != "cuda":
        return _cuda_without_gpu(source, base, prof.nvcc_with_torch)
    return None


def _cuda_without_gpu(source: str, base: Verdict, with_torch: bool) -> Verdict:
    """Compile-only where nvcc exists: a broken kernel is reported without a GPU."""
    result = cuda.compile_check(cuda.extract_sources(source), with_torch)
    if not result.ok:
        return replace(base, status="compile_error", reasons=(
            "nvcc rejected the CUDA source (compile-only check, no GPU here)",),
            log_tail=result.log)
    checked = "it compiles with nvcc, but " if result.checked else ""
    unchecked = (result.note,) if result.note else ()  # nvcc ran out of time
    return replace(base, status="needs_gpu", reasons=unchecked + (
        f"{checked}a CUDA C++ candidate can only run on a GPU",))


def choose_shapes(task: Task, device: str,
                  prof: VerifyProfile) -> tuple[Task, list[str], list[str], list[str]]:
    """(task, shapes to check, shapes skipped, notes): all shapes on a GPU; on the CPU
    interpreter those small enough to run there, else a copy of the task with its
    module-level sizes halved until one fits (admission.cpu_sized; TooLarge if none does)."""
    names = [s.name for s in task.shapes]
    if device == "cuda":
        return task, names, [], []
    costs = {n: count_cost(task, n).bytes for n in names}
    fits = [n for n in names if costs[n] <= prof.cpu_max_bytes]
    if fits:
        return task, fits, [n for n in names if n not in fits], []
    sized, name = admission.cpu_sized(task, prof.cpu_max_bytes, prof.cpu_max_flops)
    reduced = ", ".join(f"{k}={v}" for k, v in sized.shape(name).values.items())
    return sized, [name], names, [f"no shape of the task fits the CPU interpreter: checked "
                                  f"with its sizes reduced until a call fits ({reduced})"]


def _run_candidate(task, candidate: Source, device, prof, prepared: Prepared, base,
                   hold: gpulock.Hold, stages, mem: memplan.Plan) -> Verdict:
    shm = Path("/dev/shm")  # keep the job off the disk; the worker deletes it once read
    job_dir = Path(tempfile.mkdtemp(prefix="warpsmith-job-", dir=shm if shm.is_dir() else None))
    scratch = Path(tempfile.mkdtemp(prefix="warpsmith-cwd-"))  # the candidate's empty cwd
    env, when = worker_environment(device), prestart.policy(device)
    spare = prestart.SPARES.take(device, env) if when != "off" else None
    baselines = None
    try:
        job = write_job(job_dir, task, candidate, device, prof, prepared)
        ahead = when == "ahead" and spare is not None  # a process that verifies again
        in_process = timed_here(device) and prof.baselines in ("process", "kept")
        if ahead:
            prestart.SPARES.refill(device, env)
        checks = collect.CaseReader(task, prepared, device, stages)
        process = BaselineProcess.open(task, prepared, prof, device, mem.deferred) \
            if in_process else None
        if ahead and in_process:  # after the take: refilled before it, the spare taken was
            baseline_process.SPARES.refill(device, env)  # always the one just started (on
            # the H100 its baselines were ready 7-16 s after asking, as a fresh start's)
        baselines = baseline_timer.Baselines(task, prepared, prof, device, mem.block_sets,
                                             process, checks) \
            if timed_here(device) else None  # timed between the candidate's blocks
        if baselines is not None:
            checks.before_blame = baselines.end_process
        outcome = run_worker(job_dir, scratch, prof.timeout_s, env,
                             max_bytes=collect.message_limit(task, prepared, device, prof),
                             started=spare, job=job, on_case=checks,
                             on_timing=None if baselines is None else _timed_alone(baselines, hold))
        if when != "off" and not ahead:
            _refill(device, env, in_process)
        calls = len(checked(prepared.cases))
        report = parse_report(outcome.report, calls)  # read once, here
        stages |= {"candidate_process": outcome.seconds} | stage_times(report)
        base = replace(base, stage_seconds=stages, log_tail=outcome.log_tail[-2000:],
                       memory=base.memory | collect.peaks(report, device))
        source = candidate.text  # what the worker was given, as the scan read it
        native = candidate.language == "cuda"
        early = interpret_outcome(outcome, report, base, calls, native=native)
        if early is not None:
            early = offgpu.cuda_required(early, report, source, len(outcome.collected))
            return _wrong_first(early, outcome.collected)
        if len(outcome.collected) != calls:
            return replace(base, status="crashed", reasons=(
                f"the candidate's process sent the outputs of {len(outcome.collected)} of "
                f"{calls} checked calls",))
        results = [r for call in outcome.collected for r in call]
        names = gpukernels.kernel_names(source)
        verdict = offgpu.off_gpu_path(
            _correctness_verdict(base, report, results, names), source)
        verdict = offgpu.configs_unrun(verdict, report)
        return timing_verdict(verdict, baselines, report, task, prepared,
                              triton=not native)
    finally:
        if baselines is not None:
            baselines.release()  # the baselines' process, where the timing never began
        shutil.rmtree(job_dir, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
        if spare is not None:
            shutil.rmtree(spare.scratch, ignore_errors=True)


def _timed_alone(baselines: baseline_timer.Baselines, hold: gpulock.Hold):
    """The timing frames' answer, the GPU taken alone before the first: this verification's
    baselines' process ready first (its torch.compile build done while the GPU was shared),
    so that nothing of it runs while another verification is timed."""
    def answer(head, payload, elapsed=None):
        if hold.mode != "exclusive":
            if baselines.process is not None:
                with contextlib.suppress(baseline_process.BaselineFailed):
                    baselines.process.wait_ready()  # its failure is the timer's to handle
            hold.exclusive()
        return baselines(head, payload, elapsed)
    return answer


def _refill(device: str, env: dict[str, str], baselines: bool) -> None:
    """The next verification's spares: the candidate's worker, and the baselines' process
    where they are timed in one."""
    prestart.SPARES.refill(device, env)
    if baselines:
        baseline_process.SPARES.refill(device, env)


# How a process ended that the outputs it already sent outrank: a kernel wrong on call 0 that
# then hung got `timeout` (not stored, retried: "a correct kernel can run past the deadline
# here", E65)
# here", E65), and a report forged to say the import failed after wrong outputs had been sent
# got `compile_error` (red-team round of 2026-12-05)
ENDINGS_AFTER_WRONG = frozenset({"timeout", "crashed", "runtime_error", "needs_gpu",
                                 "compile_error"})


def _wrong_first(early: Verdict, collected: tuple) -> Verdict:
    """`incorrect` when an output the trusted side already compared was wrong and the process
    then ended badly; the ending as it was otherwise."""
    results = [r for call in collected for r in call]
    failed = [r for r in results if not r.ok]
    if early.status == "compile_error" and results and not failed:  # the import had run
        return replace(early, status="crashed", reasons=(
            f"the candidate's process reported a failed import after {len(results)} checked "
            "outputs had arrived: a report written by the candidate, not a failed import",
            *early.reasons[:1]))
    if not failed or early.status not in ENDINGS_AFTER_WRONG:
        return early
    return replace(early, status="incorrect", cases=tuple(results),
                   reasons=_failure_lines(failed, len(results)) + tuple(
                       f"then: {r}" for r in early.reasons[:1]))


def write_job(job_dir, task, candidate: Source, device, prof, prepared: Prepared) -> bytes:
    """The job folder, code only: copies of the candidate and the task under code/, named
    relative to the folder, which the sandbox binds read-only (or copies into a spare's
    inbox) wherever the worker meets it. Returns what the worker reads from stdin: the job
    record and the shapes' parameters (protocol.job_message), never a file it could keep, and
    never an input or a seed: each call's inputs are handed over when it starts."""
    code = job_dir / "code"
    code.mkdir()
    (code / "candidate.py").write_bytes(candidate.data)  # the bytes scanned, not the file now
    shutil.copyfile(task.path, code / Path(task.path).name)
    job = Job(candidate="code/candidate.py", task=f"code/{Path(task.path).name}",
              device=device, timing=timed_here(device), profile=prof.name,
              timed_shape=prepared.timed_shape)
    buffer = io.BytesIO()
    torch.save({"shapes": prepared.shapes}, buffer)
    return job_message(job, buffer.getvalue())


def _correctness_verdict(base, report: WorkerReport, results, names: set[str]) -> Verdict:
    if base.device == "cuda":  # what the profiler saw execute, in any language
        kernels = tuple(dict.fromkeys(k for call in report.gpu_kernels for k, _ in call
                                      if gpukernels.is_own(k, names)))
    else:  # what Triton's launch hook saw launched
        kernels = tuple(dict.fromkeys(name for launches in report.kernels
                                      for name, own in launches if own))
    base = replace(base, cases=tuple(results), kernels_launched=kernels)
    if report.refused:  # as when the refusal ends the call: the same access, the same status
        return replace(base, status="runtime_error", reasons=(
            f"{report.refused[0]} (raised in a launch and caught by the candidate's code; "
            f"{len(report.refused)} such refusals)",))
    problems = dynamic_problems(report, names if base.device == "cuda" else None)
    if problems:
        return replace(base, status="rejected", reasons=tuple(p for _, p in problems),
                       rules=tuple(dict.fromkeys(r for r, _ in problems)))
    failed = [r for r in results if not r.ok]
    if failed:
        return replace(base, status="incorrect", reasons=_failure_lines(failed, len(results)))
    if report.inputs_modified:
        return replace(base, status="incorrect", reasons=("the candidate modified its inputs",))
    return replace(base, status="passed", correct=True)


def _failure_lines(failed: list, total: int) -> tuple[str, ...]:
    """The first three distinct failures (shape, inputs, problem), each once with the number
    of checks it stands for: a wrong output shape used to fill every line with one text."""
    groups: dict[tuple, int] = {}
    for r in failed:
        key = (r.shape, r.variant, r.problem)
        groups[key] = groups.get(key, 0) + 1
    shown = list(groups.items())[:3]
    lines = [f"shape {s} ({v} inputs): {p}" + (f" ({n} checks)" if n > 1 else "")
             for (s, v, p), n in shown]
    rest = len(failed) - sum(n for _, n in shown)
    if rest:
        lines.append(f"… and {rest} more failing checks of {total}")
    return tuple(lines)


def dynamic_problems(report: WorkerReport, gpu_names: set[str] | None
                      ) -> list[tuple[str, str]]:
    """gpu_names: the candidate's kernel names on a GPU, where the profiler's record of what
    executed replaces the Triton launch hook's record of what was launched."""
    if gpu_names is not None:
        problems = gpukernels.problems(report.gpu_kernels, gpu_names, len(report.kernels))
    else:
        problems = _launch_problems(report.kernels)
    forbidden = sorted({op for ops in report.forbidden_ops for op in ops})
    if forbidden:
        problems.append(("forbidden-op", "forward did what the task does not allow (PyTorch "
                                         "compute, host access to tensor data, threads, "
                                         f"forks): {', '.join(forbidden[:8])}"))
    if any(report.threads_started):
        problems.append(("thread-started", "forward started a thread; work must be done by "
                                           "the candidate's kernels on the calling thread"))
    if report.bad_outputs:
        problems.append(("output-not-tensor", "forward returned a Tensor subclass, which can "
                                              "run code when the verifier reads it"))
    if report.poison_off:
        problems.append(("poison-disabled", "forward switched off the NaN fill of fresh "
                                            "memory (deterministic algorithms)"))
    if report.tampered:
        problems.append(("harness-tampered", "the candidate replaced functions the verifier "
                         f"relies on: {', '.join(sorted(set(report.tampered))[:5])}"))
    if report.aliased:
        problems.append(("output-aliases-input", "an output shares memory with an input"))
    return problems


def _launch_problems(calls: list) -> list[tuple[str, str]]:
    for i, launches in enumerate(calls):
        if not any(own for _, own in launches):
            return [("no-kernel-ran", f"call {i}: none of the candidate's own Triton kernels "
                                      "ran; the work was done elsewhere")]
    return []


def cache_key(task: Task, candidate_source: str, device: str, prof: VerifyProfile,
              env: dict) -> str:
    parts = [task.name, task.source, candidate_source, VERIFIER_VERSION, device, prof.name,
             json.dumps(env, sort_keys=True)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def environment(device: str) -> dict:
    env = {"warpsmith": __version__, "verifier": VERIFIER_VERSION, "python":
           platform.python_version(), "torch": torch.__version__, "device": device,
           "sandbox": jail.current().kind}
    try:
        import triton
        env["triton"] = triton.__version__
    except ImportError:
        env["triton"] = None
    if device == "cuda" and torch.cuda.is_available():
        env["gpu"] = torch.cuda.get_device_name()
        env["cuda"] = torch.version.cuda
        env["driver"] = nvidia_driver()
    return env


@functools.cache
def nvidia_driver() -> str | None:
    """The NVIDIA kernel module's version (580.159.04), from the file the module writes; None
    where it is absent (no NVIDIA driver, or not Linux)."""
    try:
        return parse_driver(Path("/proc/driver/nvidia/version").read_text())
    except OSError:
        return None


def parse_driver(text: str) -> str | None:
    match = re.search(r"Kernel Module(?:\s+for\s+\S+)?\s+([0-9][0-9.]+)", text)
    return match.group(1) if match else None
