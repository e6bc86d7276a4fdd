"""Memory safety on a GPU (issue 31, item 5): the candidate's forward run once more under
compute-sanitizer's memcheck, in the sandbox, where `--profile thorough` asks for it. Out-of-
bounds and misaligned global accesses are named by the sanitizer's own log (kernel, access,
how far outside which allocation), which the trusted side reads; the candidate's printed
output is never read for it.

PyTorch's caching allocator is switched off in that process (PYTORCH_NO_CUDA_MEMORY_CACHING):
tensors carved from one cached segment would let a read past one tensor land in another
without leaving an allocation, which memcheck cannot see. What is still not seen: a read or
write that lands inside another live allocation of the process."""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ...types import Task
from ..isolation import sandboxed

TIMEOUT_S = 600.0  # memcheck slows kernels 10-100×; the verifier's thorough deadline is 900
MAX_LOG_CHARS = 1 << 20  # of the sanitizer's log: the summary is at its end
ERROR_EXIT = 97  # --error-exitcode: what the sanitizer returns when it found an error
SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors?")
FINDING = re.compile(r"^=+ (Invalid __global__ (?:read|write)[^\n]*|Misaligned [^\n]*|"
                     r"Out-of-range [^\n]*|Invalid __shared__ [^\n]*|Invalid __local__ [^\n]*)",
                     re.M)


@dataclass(frozen=True)
class Memcheck:
    """ran: the sanitizer reported a summary; findings: its first errors, each one line;
    why_not: why it gave no judgement (then ran is False)."""

    ran: bool
    findings: tuple[str, ...] = ()
    why_not: str = ""


def command(tool: str, task: Task, candidate: Path, shape: str, log: Path) -> list[str]:
    return [tool, "--tool", "memcheck", "--error-exitcode", str(ERROR_EXIT), "--print-limit",
            "20", "--log-file", str(log), sys.executable, "-m", "warpsmith.verify.child.once",
            str(task.path), str(candidate), shape]


def check(task: Task, source: bytes, shape: str, timeout_s: float = TIMEOUT_S) -> Memcheck:
    from ...config import worker_environment

    tool = shutil.which("compute-sanitizer")
    if tool is None:
        return Memcheck(False, why_not="no compute-sanitizer on PATH")
    env = worker_environment("cuda") | {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
    with tempfile.TemporaryDirectory(prefix="warpsmith-memcheck-") as tmp, \
            tempfile.TemporaryDirectory(prefix="warpsmith-memcheck-cwd-") as cwd:
        tmp_path = Path(tmp)
        candidate, log, output = tmp_path / "candidate.py", tmp_path / "log", tmp_path / "out"
        candidate.write_bytes(source)
        code = sandboxed.run(command(tool, task, candidate, shape, log), output,
                             (Path(cwd), tmp_path), env, timeout_s,
                             readonly=[task.path, *sandboxed.install_of(tool)])
        report = sandboxed.tail(log, MAX_LOG_CHARS)
        printed = sandboxed.tail(output, 4000)
    if code is None:
        return Memcheck(False, why_not=f"memcheck ran past {timeout_s:.0f} s")
    return interpret(report, printed, code)


def interpret(report: str, printed: str, code: int) -> Memcheck:
    """The sanitizer's log as a judgement: its summary decides, not the exit code alone."""
    summary = SUMMARY.findall(report)
    found = tuple(dict.fromkeys(m.strip() for m in FINDING.findall(report)))
    if summary and int(summary[-1]) > 0:
        return Memcheck(True, found[:5] or (f"{summary[-1]} memory errors (see the sanitizer's "
                                            "log)",))
    if summary and code == 0:
        return Memcheck(True)
    last = " / ".join(line for line in printed.strip().splitlines()[-3:] if line.strip())
    return Memcheck(False, why_not=f"the sanitized run gave no summary (exit {code}): "
                                   f"{last[:300]}")
