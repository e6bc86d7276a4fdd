"""Turning how the candidate's process ended into a status, before any comparison."""

from __future__ import annotations

from dataclasses import replace

from ..types import Verdict
from .sandbox import Outcome, signal_name

COMPILE_ERRORS = ("CompilationError", "SyntaxError", "ImportError", "ModuleNotFoundError",
                  "NameError", "IndentationError", "CalledProcessError", "BuildError")


def interpret_outcome(outcome: Outcome, base: Verdict) -> Verdict | None:
    """A verdict when the process did not finish its work; None when outputs are ready."""
    report = outcome.report
    if outcome.timed_out:
        stage = report["stage"] if report else "start"
        return replace(base, status="timeout",
                       reasons=(f"the candidate's process passed the deadline (during {stage})",))
    if report is None:
        return replace(base, status="crashed", reasons=(
            f"the candidate's process died ({signal_name(outcome.returncode)}) before "
            "reporting; see log_tail",))
    if report.get("error"):
        return _error_verdict(report, base)
    if report["stage"] != "done" or outcome.returncode != 0:
        return replace(base, status="crashed", reasons=(
            f"the candidate's process ended with {signal_name(outcome.returncode)} "
            f"during {report['stage']}",))
    return None


def _error_verdict(report: dict, base: Verdict) -> Verdict:
    error = report["error"]
    stage = report["stage"]
    kind = error["type"]
    text = f"{kind} during {stage}: {error['message']}".strip()
    status = "runtime_error"
    if stage == "import" or any(k in kind for k in COMPILE_ERRORS):
        status = "compile_error"
    if kind in ("SystemExit", "KeyboardInterrupt"):
        status = "crashed"
    return replace(base, status=status, reasons=(text[:1500],),
                   log_tail=(error.get("traceback") or "")[-3000:] + "\n" + base.log_tail)
