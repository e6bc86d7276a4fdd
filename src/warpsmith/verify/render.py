"""The one text form of a verdict for people and agents. The CLI prints it (`verify`), MCP
returns it (`verify_kernel`), and its detail is the refine loop's feedback to a model
(prompts/feedback.render_feedback), so an agent reads what a person and a model read."""

from __future__ import annotations

from ..types import CaseResult, Verdict, readable_task_name


def timing_lines(v: Verdict) -> list[str]:
    """Each implementation's times and the speedups, as measured (none where not timed)."""
    lines = [f"  {t.name:<12} median {t.median_us:9.1f} µs  (IQR {t.iqr_us:.1f}, "
             f"min {t.min_us:.1f}, {t.calls} calls)" for t in v.timings]
    if v.speedup_vs_eager is not None:
        lines.append(f"speedup {v.speedup_vs_eager:.2f}× vs eager, "
                     f"{_num(v.speedup_vs_compile, '.2f')}× vs torch.compile; "
                     f"{_num(v.roofline_fraction, '.0%')} of the roofline floor "
                     f"({_num(v.floor_us, '.3g')} µs)")
    return lines


def _num(x: float | None, spec: str) -> str:
    return "n/a" if x is None else format(x, spec)


def summary_lines(v: Verdict) -> list[str]:
    """What was checked and what was measured: the first line is the status."""
    cached = " (stored verdict; --no-cache to re-run)" if v.cached else ""
    lines = [f"{v.status}  {readable_task_name(v.task)}  ←  {v.candidate}{cached}"]
    sandbox = v.environment.get("sandbox")
    lines.append(f"device {v.device}" + (f", sandbox {sandbox}" if sandbox else "")
                 + f"; shapes checked: {', '.join(v.shapes_checked) or '-'}"
                 + (f"; skipped (too large here): {', '.join(v.shapes_skipped)}"
                    if v.shapes_skipped else ""))
    if v.cases:
        worst = max(v.cases, key=_badness)
        lines.append(f"{sum(c.ok for c in v.cases)}/{len(v.cases)} output checks agree with "
                     f"the reference; worst relative error {worst.norm_rel or 0:.2e} (the "
                     f"reference's own in the task's dtype: {worst.ref_norm_rel or 0:.2e})")
    if v.kernels_launched:
        lines.append(f"kernels that ran: {', '.join(v.kernels_launched)}")
    lines += timing_lines(v)
    if v.memory.get("plan_gib"):
        peaks = [f"{side} peak {v.memory[k]} GiB" for side, k in (
            ("verifier", "trusted_peak_gib"), ("candidate", "candidate_peak_gib"))
            if k in v.memory]
        lines.append(f"memory plan {v.memory['plan_gib']} GiB of {v.memory['budget_gib']} GiB"
                     + (f"; {', '.join(peaks)}" if peaks else ""))
    return lines


def detail_lines(v: Verdict) -> list[str]:
    """Why: the reasons, the warnings, and where the candidate failed, its error trimmed to
    the candidate's own frames as the refine loop's feedback has it (prompts/feedback.py)."""
    from ..prompts.feedback import LOG_STATUSES, trim_log

    lines = [f"- {r}" for r in v.reasons] + [f"warning: {w}" for w in v.warnings]
    if v.log_tail.strip() and v.status in LOG_STATUSES:
        lines += ["error output (trimmed):", *trim_log(v.log_tail, v.candidate).splitlines()]
    return lines


def verdict_text(v: Verdict) -> str:
    """The summary, then the feedback a model gets (the trimmed error, the worst cases, the
    speed against the baselines and the floor)."""
    from ..prompts.feedback import render_feedback

    return "\n".join(summary_lines(v)) + "\n\n" + render_feedback(v)


def _badness(case: CaseResult) -> float:
    rel = case.norm_rel or 0.0
    return float("inf") if rel != rel else rel  # NaN (unwritten output) is the worst
