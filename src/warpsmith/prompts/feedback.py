"""A verdict as feedback for the next attempt: the error trimmed to what matters, where the
output was wrong and by how much, and how fast it ran against eager PyTorch, torch.compile
and the roofline floor."""

from __future__ import annotations

import re
from pathlib import Path

from ..types import CaseResult, Timing, Verdict
from ..verify.feedback import hint

MAX_LOG_LINES = 25
MAX_LINE_CHARS = 240
MAX_CASES = 4
MAX_REASONS = 6
LOG_STATUSES = ("compile_error", "runtime_error", "crashed", "timeout")

FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+')
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Frames in these files are the verifier's, Python's or a library's, not the candidate's.
INTERNAL_PATHS = ("site-packages", "dist-packages", "/warpsmith/", "<frozen", "/lib/python")
CHAIN_LINES = ("Traceback (most recent call last)", "The above exception was the direct cause",
               "During handling of the above exception")
COMPILER_ERROR = re.compile(r"\berror\b", re.IGNORECASE)


def render_feedback(verdict: Verdict) -> str:
    sections = [f"Status: {verdict.status}. {hint(verdict)}".strip()]
    sections += [_reasons(verdict), _cases(verdict), _log(verdict), _speed(verdict),
                 _warnings(verdict)]
    return "\n\n".join(s for s in sections if s)


def _reasons(v: Verdict) -> str:
    # A wrong output's reason repeats its case's problem, shown with the case's numbers, and
    # the verifier's "… and N more" counts those cases.
    told = {c.problem for c in v.cases if not c.ok and c.problem}
    reasons = [r for r in v.reasons
               if not any(p in r for p in told) and not (told and r.startswith("…"))]
    lines = [f"- {_clip(r)}" for r in reasons[:MAX_REASONS]]
    if len(reasons) > MAX_REASONS:
        lines.append(f"- … and {len(reasons) - MAX_REASONS} more")
    if v.rules:
        lines.append(f"Rules that fired: {', '.join(v.rules)}")
    return "\n".join(lines)


def _cases(v: Verdict) -> str:
    wrong = [c for c in v.cases if not c.ok]
    # One per shape and input kind: another seed of the same kind seldom tells more.
    shown = list({(c.shape, c.variant): c for c in reversed(wrong)}.values())[::-1]
    if not shown:
        return ""
    lines = ["Wrong outputs:"] + [f"- {_case(c)}" for c in shown[:MAX_CASES]]
    if len(wrong) > min(len(shown), MAX_CASES):
        lines.append(f"- ({len(wrong)} failing checks in all)")
    return "\n".join(lines)


def _case(c: CaseResult) -> str:
    text = f"shape {c.shape}, {c.variant} inputs: max abs error {_num(c.max_abs)}, " \
           f"max rel error {_num(c.max_rel)}, norm-relative error {_num(c.norm_rel)} " \
           f"(the reference's own: {_num(c.ref_norm_rel)})"
    if c.problem:
        return f"{text}; {_clip(c.problem)}"
    return text + (f"; {c.mismatches} of {c.numel} elements outside tolerance" if c.numel
                   else "")


def _log(v: Verdict) -> str:
    if v.status not in LOG_STATUSES or not v.log_tail.strip():
        return ""
    return "Error output (trimmed):\n" + trim_log(v.log_tail, v.candidate)


def _speed(v: Verdict) -> str:
    if not v.timings:
        return ""
    times = {t.name: t for t in v.timings}
    head = f"Timing at shape {v.timed_shape}:" if v.timed_shape else "Timing:"
    lines = [head] + [f"- {_timing(t, times.get('candidate'))}" for t in v.timings]
    if v.roofline_fraction is not None:
        lines.append(f"- {v.roofline_fraction:.0%} of the roofline floor "
                     f"({_num(v.floor_us, '.1f')} µs)")
    return "\n".join(lines)


def _timing(t: Timing, candidate: Timing | None) -> str:
    text = f"{t.name}: median {t.median_us:.1f} µs (IQR {t.iqr_us:.1f})"
    if candidate is not None and t is not candidate and candidate.median_us > 0:
        text += f"; your speedup over it: {t.median_us / candidate.median_us:.2f}×"
    return text


def _warnings(v: Verdict) -> str:
    return "\n".join(["Warnings:"] + [f"- {_clip(w)}" for w in v.warnings[:MAX_REASONS]]) \
        if v.warnings else ""


def trim_log(log: str, candidate: str = "", max_lines: int = MAX_LOG_LINES) -> str:
    """A Python traceback keeps the candidate's own frames and the error messages; a compiler
    log keeps its error lines and what follows each; anything else keeps its tail."""
    lines = [ANSI.sub("", line) for line in log.splitlines()]
    if any(FRAME.match(line) for line in lines):
        kept = _traceback_lines(lines)
    else:
        kept = _compiler_lines(lines)
    kept = kept or [line for line in lines if line.strip()]
    name = Path(candidate).name if candidate else ""
    kept = [_clip(line.replace(candidate, name) if candidate else line) for line in kept]
    return "\n".join(kept[-max_lines:])


def _traceback_lines(lines: list[str]) -> list[str]:
    kept, keeping = [], False  # lines before the first frame are a cut-off tail: dropped
    for line in lines:
        frame = FRAME.match(line)
        if frame:
            keeping = not any(p in frame.group("path") for p in INTERNAL_PATHS)
        elif not line.strip() or line.startswith(CHAIN_LINES):
            keeping = False
            continue
        elif not line[0].isspace():  # an exception line; a message may run over several
            keeping = True
        if keeping:
            kept.append(line)
    return kept


def _compiler_lines(lines: list[str], context: int = 2) -> list[str]:
    keep = set()
    for i, line in enumerate(lines):
        if COMPILER_ERROR.search(line):
            keep.update(range(i, min(i + context + 1, len(lines))))
    return [lines[i] for i in sorted(keep) if lines[i].strip()]


def _clip(text: str, limit: int = MAX_LINE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def _num(x: float | None, spec: str = ".2e") -> str:
    return "n/a" if x is None else format(x, spec)
