"""A short text for an LLM trying again: what failed, where, and by how much."""

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


def feedback_text(v: Verdict) -> str:
    lines = [f"status: {v.status}. {HINTS.get(v.status, '')}"]
    lines += [f"- {r}" for r in v.reasons[:5]]
    worst = [c for c in v.cases if not c.ok][:3]
    for c in worst:
        lines.append(f"- shape {c.shape}, {c.variant} inputs: max abs error "
                     f"{_fmt(c.max_abs)}, relative error {_fmt(c.norm_rel)} "
                     f"(reference's own {_fmt(c.ref_norm_rel)})")
    if v.speedup_vs_eager is not None:
        lines.append(f"- speed: {v.speedup_vs_eager:.2f}× eager, "
                     f"{_fmt(v.speedup_vs_compile, '.2f')}× torch.compile, "
                     f"{_fmt(v.roofline_fraction, '.0%')} of the roofline floor")
    if v.status in ("compile_error", "runtime_error", "crashed") and v.log_tail:
        lines.append("log (last lines):\n" + "\n".join(v.log_tail.strip().splitlines()[-12:]))
    return "\n".join(lines)


def _fmt(x, spec: str = ".2e") -> str:
    return "n/a" if x is None else format(x, spec)
