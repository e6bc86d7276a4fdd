"""The status hints, and a verdict's `feedback` text (prompts/feedback.py renders it)."""

from __future__ import annotations

from ..types import Verdict

HINTS = {
    "passed": "The kernel is correct.",
    "suspect": "The result looks too good to be true and is held for review.",
    "compile_error": "The candidate did not build or import. Fix the error below.",
    "runtime_error": "The candidate raised an error while running.",
    "incorrect": "The outputs do not match the reference.",
    "rejected": "A verification rule rejected the candidate.",
    "timeout": "The candidate ran past the deadline; look for an endless loop or a grid far "
               "too large.",
    "crashed": "The candidate's process died (segfault, illegal memory access, exit).",
    "needs_gpu": "This candidate can only be checked on a GPU.",
    "too_large": "The task's cases do not fit this machine's memory: the verifier's limit, "
                 "not a fault of the candidate.",
}
# The Triton interpreter runs a correct kernel thousands of times slower than a GPU: its
# timeout says nothing certain about the kernel, and the hint must not say it does
CPU_TIMEOUT = ("The candidate did not finish before the deadline on the CPU interpreter, "
               "which is slow and may be loaded: a correct kernel on a large shape can time "
               "out here, as can an endless loop or a grid far too large.")


def hint(v: Verdict) -> str:
    if v.status == "timeout" and v.device == "cpu":
        return CPU_TIMEOUT
    return HINTS.get(v.status, "")


def feedback_text(v: Verdict) -> str:
    """The verdict's `feedback`: the text the refine loop gives a model
    (prompts/feedback.render_feedback), so the reward service, the executors and MCP hand out
    what a model in warpsmith's own search reads, not a poorer copy."""
    from ..prompts.feedback import render_feedback  # it imports hint from here

    return render_feedback(v)
