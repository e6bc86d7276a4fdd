"""The tools that run a candidate: verify_kernel (correctness, and timing where there is a GPU)
and time_kernel (timing, which needs one). The verifier and torch are imported when a tool
first runs, not when the server starts."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from mcp.types import CallToolResult

from ... import config
from ...types import Verdict
from .common import Device, Profile, Source, Task, keep_source, result

# One verification, timing or search at a time: two timings sharing a GPU corrupt each other's
# numbers, and on the CPU one interpreter run already fills the cores. Other calls (list, show,
# find) do not wait for it.
EXCLUSIVE = threading.Lock()


def verify_kernel(task: Task, source: Source, device: Device = None,
                  profile: Profile = "quick") -> CallToolResult:
    """Verify a candidate kernel against a task: static rules, then many random inputs and
    shapes compared with the reference, then timing against PyTorch eager and torch.compile when
    the server has a GPU. Returns the status ('passed' only when accepted), why it failed, and
    feedback to fix it. Takes seconds on the CPU, longer with timing. A repeat of the same source
    is answered from the store."""
    from ...store import verdict_to_dict

    verdict = _verify(task, keep_source(task, source), device, profile)
    return result(verdict_text(verdict), verdict_to_dict(verdict))


def time_kernel(task: Task, source: Source, profile: Profile = "quick") -> CallToolResult:
    """Time a candidate on the server's GPU against PyTorch eager and torch.compile (correctness
    is checked first: an incorrect kernel is not timed). Returns median times with their spread,
    the speedups and the fraction of the roofline reached. Needs a CUDA GPU: without one it says
    so and times nothing."""
    import torch

    from ...store import verdict_to_dict

    if not torch.cuda.is_available():
        return result("not timed: timing needs a CUDA GPU and this server has none. "
                      "verify_kernel still checks correctness here, on the CPU interpreter; "
                      "run the server on a GPU machine to time.",
                      {"timed": False, "reason": "no CUDA GPU on the server"}, error=True)
    verdict = _verify(task, keep_source(task, source), "cuda", profile)
    data = verdict_to_dict(verdict) | {"timed": verdict.timing_measured}
    return result(timing_text(verdict), data)


def _verify(task: str, path: Path, device: str | None, profile: str) -> Verdict:
    from ... import verify
    from ...store import VerdictStore

    store = VerdictStore(config.db_path())
    try:
        with EXCLUSIVE:
            verdict = verify(task, path, device=device, profile=profile, store=store)
    finally:
        store.close()
    # a stored verdict names the file it was made from, perhaps one since gone: this is ours
    return replace(verdict, candidate=str(path))


def verdict_text(v: Verdict) -> str:
    """The CLI's text of the verdict and the refine loop's feedback (verify/render.py)."""
    from ...verify.render import verdict_text as text

    hint = ("\nnot timed: timing needs a CUDA GPU (time_kernel on a GPU server)"
            if v.passed and not v.timing_measured else "")
    return text(v) + hint


def timing_text(v: Verdict) -> str:
    """time_kernel's answer: the CLI's timing lines (verify/render.py), reasons, warnings."""
    from ...verify.render import timing_lines

    if not v.timing_measured:
        return (f"not timed: the candidate did not pass verification ({v.status}); fix it "
                f"first.\n{verdict_text(v)}")
    lines = [f"{v.status} on {v.device}, timed at shape {v.timed_shape}:", *timing_lines(v)]
    lines += [f"- {r}" for r in v.reasons]
    lines += [f"warning: {w}" for w in v.warnings]
    return "\n".join(lines)
