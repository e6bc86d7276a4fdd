"""Every candidate file under tests/kernels declares its task and the status it must get.

good/ must pass; bad/ covers every failure status; redteam/ implements exploits from
shared/research/verification.md and must never pass.
"""

import shutil
from dataclasses import replace

import pytest

from warpsmith.config import PROFILES
from warpsmith.verify.pipeline import verify

from .conftest import corpus, header

# Short deadline so the timeout case is quick; generous enough for torch + triton start-up.
TEST_PROFILE = replace(PROFILES["quick"], timeout_s=60)


@pytest.mark.parametrize("path", corpus("good") + corpus("bad"), ids=lambda p: p.stem)
def test_candidate_gets_its_declared_status(path):
    if "# requires: nvcc" in path.read_text() and shutil.which("nvcc") is None:
        pytest.skip("needs nvcc for the compile-only check")
    verdict = verify(header(path, "task"), path, device="cpu", profile=TEST_PROFILE)
    assert verdict.status == header(path, "expect"), verdict.feedback
    assert verdict.correct == (verdict.status == "passed")


@pytest.mark.parametrize("path", corpus("redteam"), ids=lambda p: p.stem)
def test_redteam_candidate_is_caught(path):
    verdict = verify(header(path, "task"), path, device="cpu", profile=TEST_PROFILE)
    assert verdict.status != "passed", f"exploit {header(path, 'exploit')} passed"
    assert verdict.status == header(path, "expect"), verdict.feedback
