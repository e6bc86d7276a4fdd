"""GPU checks: run on the GPU machine (`pytest -m gpu`); skipped where no GPU is present."""

from dataclasses import replace

import pytest
import torch

from warpsmith.config import profile as get_profile
from warpsmith.tasks.suite import resolve_task
from warpsmith.verify.pipeline import verify

from .conftest import corpus, header

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]


@pytest.mark.parametrize("path", corpus("good"), ids=lambda p: p.stem)
def test_honest_candidate_passes_and_is_timed_on_the_gpu(path):
    task = resolve_task(header(path, "task"))
    v = verify(task, path, device="cuda")
    assert v.status == "passed", v.feedback
    assert v.timing_measured and v.timed_shape == task.shapes[-1].name  # the largest
    m = v.memory  # each side within its share of the plan (a coarse estimate: +25% + 1 GiB)
    assert m["trusted_peak_gib"] <= m["plan_trusted_gib"] * 1.25 + 1, m
    assert m["candidate_peak_gib"] <= m["plan_candidate_gib"] * 1.25 + 1, m
    assert v.speedup_vs_eager > 0 and v.peak_floor_us > 0


@pytest.mark.parametrize("path", corpus("redteam"), ids=lambda p: p.stem)
def test_redteam_candidate_is_caught_on_the_gpu(path):
    """`# gpu: memcheck`: a class only compute-sanitizer sees on a GPU (an unmasked read that
    stays in mapped memory), judged where a profile asks for it (thorough does)."""
    memcheck = "# gpu: memcheck" in path.read_text()
    v = verify(header(path, "task"), path, device="cuda",
               profile=replace(get_profile("quick"), memcheck=memcheck))
    assert v.status != "passed", f"exploit {header(path, 'exploit')} passed on the GPU"


@pytest.mark.parametrize("path", corpus("gpu"), ids=lambda p: p.stem)
def test_gpu_only_candidate_gets_its_declared_status(path):
    """tests/kernels/gpu: CUDA C++ candidates (load_inline, NVRTC) and GPU-only exploits."""
    v = verify(header(path, "task"), path, device="cuda")
    expect = header(path, "expect")
    if expect == "passed":
        assert v.status == "passed", v.feedback
        assert v.kernels_launched, "the profiler saw none of the candidate's kernels"
    elif expect == "timed-honestly":  # a pure timing trick: a pass must carry the true time
        assert v.status != "passed" or v.speedup_vs_eager < 0.5, v.feedback
    else:
        assert v.status != "passed", f"exploit {header(path, 'exploit')} passed on the GPU"
        assert expect == "caught" or v.status == expect, v.feedback
