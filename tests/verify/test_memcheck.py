"""verify/checks/memcheck.py: compute-sanitizer's memcheck as the GPU's judge of memory safety
(issue 31, item 5). The real tool runs on a GPU (tests/verify/test_gpu.py); here its log is
read from fixed texts in its format and a stand-in plays the tool in the sandbox."""

import os
from pathlib import Path

import pytest

from warpsmith.tasks import resolve_task
from warpsmith.types import Verdict
from warpsmith.verify import pipeline
from warpsmith.verify.checks import memcheck
from warpsmith.verify.isolation import jail

OOB_LOG = """========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at relu_kernel+0x1d0
=========     by thread (0,0,0) in block (1,0,0)
=========     Address 0x7f0c4e000400 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f0c4e000000 of size 1024 bytes
=========
========= Invalid __global__ read of size 4 bytes
=========     at relu_kernel+0x1d0
=========     by thread (1,0,0) in block (1,0,0)
========= ERROR SUMMARY: 2 errors
"""
CLEAN_LOG = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"


def test_an_out_of_bounds_access_is_named_once():
    found = memcheck.interpret(OOB_LOG, "", memcheck.ERROR_EXIT)
    assert found.ran and found.findings == ("Invalid __global__ read of size 4 bytes",)


def test_a_clean_summary_with_a_clean_exit_is_clean():
    assert memcheck.interpret(CLEAN_LOG, "", 0) == memcheck.Memcheck(True)


@pytest.mark.parametrize("log, code", [("", 0), ("", 1), (CLEAN_LOG, 1)])
def test_no_summary_or_a_failed_run_is_no_judgement(log, code):
    """A run that ended without the sanitizer's verdict judges nothing either way."""
    found = memcheck.interpret(log, "Traceback\nRuntimeError: boom", code)
    assert not found.ran and "boom" in found.why_not


def test_where_no_sanitizer_exists_the_verdict_says_so(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    verdict = pipeline.memory_safety(resolve_task("level1/relu"), _source(), _passed())
    assert verdict.status == "passed"
    assert any("memory safety not judged" in w for w in verdict.warnings)


def test_the_sanitizer_runs_in_the_sandbox_and_its_log_decides(monkeypatch, tmp_path):
    """A stand-in compute-sanitizer (in the sandbox: its own PID namespace, the task bound
    read-only) writes a log in the real one's format: an error there is `runtime_error`."""
    if not jail.current().ok:
        pytest.skip(f"no OS sandbox here: {jail.current().detail}")
    fake = tmp_path / "bin" / "compute-sanitizer"
    fake.parent.mkdir()
    fake.write_text(
        '#!/bin/sh\nlog=""; task=""\n'
        'while [ $# -gt 0 ]; do [ "$1" = "--log-file" ] && log=$2\n'
        '  case "$1" in *.py) [ -z "$task" ] && task=$1;; esac; shift; done\n'
        'test -r "$task" || exit 3\n'
        'printf "========= Invalid __global__ write of size 4 bytes pid=$$\\n'
        '========= ERROR SUMMARY: 1 error\\n" > "$log"\nexit 97\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    verdict = pipeline.memory_safety(resolve_task("level1/relu"), _source(), _passed())
    assert verdict.status == "runtime_error" and not verdict.correct
    pid = int(verdict.reasons[0].rsplit("pid=", 1)[1])
    assert pid < 20  # a PID namespace of its own: the sandbox's


def test_only_the_thorough_profile_asks_for_it():
    from warpsmith.config import PROFILES

    assert PROFILES["thorough"].memcheck and not PROFILES["quick"].memcheck


def _passed() -> Verdict:
    return Verdict(status="passed", task="level1/relu", candidate="c.py", device="cuda",
                   correct=True, shapes_checked=("small",))


def _source() -> pipeline.Source:
    path = Path(pipeline.__file__).parents[1] / "examples" / "relu_triton.py"
    return pipeline.Source(path, path.read_bytes(), path.read_text())

