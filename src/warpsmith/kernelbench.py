"""KernelBench's evaluator, answered by warpsmith's verifier: a script that evaluates with

    from kernelbench.eval import eval_kernel_against_ref, KernelExecResult

changes that one line to

    from warpsmith.kernelbench import eval_kernel_against_ref, KernelExecResult

and keeps its calls and the fields it reads. The reference and the candidate are written to
private temporary files and judged by warpsmith.verify.pipeline.verify: the candidate runs in
its own sandboxed process, its outputs are compared on the trusted side over several fresh
seeds, shapes and input distributions, and its time is measured interleaved with eager PyTorch.
docs/kernelbench.md lists what this rejects that KernelBench's evaluator accepts, and which
arguments are kept for compatibility only.
"""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .types import Timing, Verdict

log = logging.getLogger(__name__)

# KernelBench's backends that warpsmith can build and verify (the language is read from the
# candidate's source, so the name is only checked)
BACKENDS = ("cuda", "triton")
# statuses whose candidate never built or whose result is refused outright
NOT_COMPILED = ("compile_error",)
RUN_FAILED = ("runtime_error", "timeout", "crashed")


# Mutable and with defaults, as KernelBench's pydantic model is: its scripts set fields on it
# and read it with model_dump(); frozen it would break them.
@dataclass
class KernelExecResult:
    compiled: bool = False
    correctness: bool = False
    metadata: dict = field(default_factory=dict)
    runtime: float = -1.0  # ms, the candidate's median; -1 when not timed
    runtime_stats: dict = field(default_factory=dict)
    ref_runtime: float = -1.0  # ms, eager PyTorch's median, timed interleaved with it
    ref_runtime_stats: dict = field(default_factory=dict)

    def model_dump(self) -> dict:
        """pydantic's name for it, which KernelBench's scripts call."""
        return asdict(self)

    dict = model_dump  # pydantic v1's name


def eval_kernel_against_ref(
    original_model_src: str,
    custom_model_src: str,
    seed_num: int = 42,
    num_correct_trials: int = 1,
    num_perf_trials: int = 10,
    measure_performance: bool = False,
    timing_method: str = "cuda_event",
    verbose: bool = False,
    build_dir: os.PathLike | None = None,
    device: Any = None,
    backend: str = "cuda",
    precision: Any = None,
    check_for_excessive_speedup: bool = True,
    excessive_speedup_threshold: float = 10,
    *,
    profile: str = "quick",
    store=None,
) -> KernelExecResult:
    """KernelBench's signature and result; warpsmith's verdict behind it (whole, as a dict,
    in metadata["warpsmith_verdict"]).

    Kept for compatibility and not used: seed_num, num_correct_trials (the verifier draws
    its own secret seeds: `profile` sets how many), num_perf_trials and timing_method (the
    profile's interleaved blocks), build_dir (builds happen in the candidate's sandbox),
    excessive_speedup_threshold (warpsmith's plausibility gates compare with the roofline
    floor instead). check_for_excessive_speedup: metadata["excessive_speedup"] set where the
    verdict flags an implausibly fast result (re-measured, never failed for it), as
    KernelBench flags without changing correctness. `device`: a CUDA index or torch.device, or
    "cpu" (the Triton interpreter, correctness only); default: CUDA when present, else CPU.
    `store`: a warpsmith VerdictStore to cache verdicts in (default: none)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r}: warpsmith verifies {' and '.join(BACKENDS)} "
                         "kernels")
    if verbose:
        log.info("warpsmith verifies the candidate (%s backend)", backend)
    verdict = _verify(original_model_src, custom_model_src, _device(device),
                      _dtype_name(precision), profile, store)
    result = result_of(verdict, measure_performance)
    if not check_for_excessive_speedup:
        result.metadata.pop("excessive_speedup", None)
    return result


def _verify(reference: str, candidate: str, device: str, dtype: str, profile: str,
            store) -> Verdict:
    """The verdict on temporary copies of both sources: KernelBench casts the model and the
    inputs to `precision`, which a task says with DTYPE (unless it says so already)."""
    from .verify.pipeline import verify

    if "\nDTYPE" not in f"\n{reference}":
        reference = f"{reference.rstrip()}\n\n\nDTYPE = {dtype!r}  # KernelBench's precision\n"
    with tempfile.TemporaryDirectory(prefix="warpsmith-kb-") as folder:
        task, kernel = Path(folder) / "reference.py", Path(folder) / "candidate.py"
        task.write_text(reference)
        kernel.write_text(candidate)
        return verify(str(task), kernel, device=device, profile=profile, store=store,
                      use_cache=store is not None)


def _device(device: Any) -> str:
    """KernelBench passes a CUDA index or a torch.device; the verifier takes cuda or cpu
    (which GPU: CUDA_VISIBLE_DEVICES, as for every warpsmith command)."""
    if device is None:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    kind = device if isinstance(device, str) else getattr(device, "type", "cuda")
    return "cpu" if str(kind).startswith("cpu") else "cuda"


def _dtype_name(precision: Any) -> str:
    name = str(precision or "float32").removeprefix("torch.")
    names = {"float": "float32", "half": "float16", "fp32": "float32", "fp16": "float16",
             "bf16": "bfloat16"}
    name = names.get(name, name)
    if name not in ("float32", "float16", "bfloat16"):
        raise ValueError(f"precision {precision!r}: use torch.float32, torch.float16 or "
                         "torch.bfloat16")
    return name


def result_of(verdict: Verdict, measure_performance: bool = True) -> KernelExecResult:
    """A warpsmith verdict in KernelBench's terms."""
    from .store import verdict_to_dict

    result = KernelExecResult(
        compiled=verdict.status not in NOT_COMPILED and not _rejected_unbuilt(verdict),
        correctness=verdict.passed, metadata=_metadata(verdict))
    timings = {t.name: t for t in verdict.timings}
    if measure_performance and verdict.passed and "candidate" in timings:
        result.runtime, result.runtime_stats = _stats(timings["candidate"], verdict)
        if "eager" in timings:
            result.ref_runtime, result.ref_runtime_stats = _stats(timings["eager"], verdict)
    result.metadata["warpsmith_verdict"] = verdict_to_dict(verdict)
    return result


def _rejected_unbuilt(verdict: Verdict) -> bool:
    """A rejection before anything ran (a static rule): KernelBench would say it compiled,
    but nothing was built; one after running (e.g. the execution-path proof) was."""
    return verdict.status == "rejected" and not verdict.cases and not verdict.kernels_launched


def _metadata(verdict: Verdict) -> dict:
    """KernelBench's metadata keys where warpsmith has the fact, plus warpsmith's own."""
    meta: dict[str, Any] = {"device": verdict.device, "warpsmith_status": verdict.status,
                            "warpsmith_reasons": list(verdict.reasons)}
    if gpu := verdict.environment.get("gpu"):
        meta["hardware"] = gpu
    reason = verdict.reasons[0] if verdict.reasons else verdict.status
    if verdict.status in NOT_COMPILED:
        meta["compilation_error_name"], meta["compilation_error"] = "CompilationError", reason
    elif verdict.status in RUN_FAILED:
        meta["runtime_error_name"], meta["runtime_error"] = verdict.status, reason
    elif verdict.status == "incorrect":
        meta["correctness_issue"] = reason
    elif verdict.status == "rejected":
        meta["rejected"], meta["rules"] = reason, list(verdict.rules)
    if verdict.status == "suspect" or any(w.startswith("implausibly-fast")
                                          for w in verdict.warnings):
        meta["excessive_speedup"] = True
    if verdict.cases:
        checked = [c for c in verdict.cases if c.variant != "timed"]
        meta["correctness_trials"] = f"({sum(c.ok for c in checked)} / {len(checked)})"
        meta["max_difference"] = [f"{c.max_abs:.6f}" for c in checked if c.max_abs is not None]
    return meta


def _stats(timing: Timing, verdict: Verdict) -> tuple[float, dict]:
    """(median ms, stats in ms): KernelBench reports a mean; the verifier keeps medians,
    which one slow block cannot move."""
    ms = 1e-3
    stats = {"median": timing.median_us * ms, "min": timing.min_us * ms,
             "max": timing.max_us * ms, "iqr": timing.iqr_us * ms, "num_trials": timing.calls,
             "device": verdict.device}
    if gpu := verdict.environment.get("gpu"):
        stats["hardware"] = gpu
    return timing.median_us * ms, stats
