"""warpsmith.kernelbench: KernelBench's eval_kernel_against_ref, called as a KernelBench script
calls it (source text in, KernelExecResult out), on the repo's own KernelBench-format files,
judged by the real (sandboxed) verifier on the CPU interpreter."""

import inspect
import json
from pathlib import Path

import pytest
import torch

from warpsmith.kernelbench import KernelExecResult, eval_kernel_against_ref

ROOT = Path(__file__).parent
TASK = (ROOT / "tasks" / "fixtures" / "kernelbench" / "level1" / "1_ReLU.py").read_text()
RELU = (ROOT / "kernels" / "good" / "relu_triton.py").read_text()
# KernelBench's own parameter names and order (src/kernelbench/eval.py), which scripts pass
# by keyword
KB_PARAMETERS = ["original_model_src", "custom_model_src", "seed_num", "num_correct_trials",
                 "num_perf_trials", "measure_performance", "timing_method", "verbose",
                 "build_dir", "device", "backend", "precision", "check_for_excessive_speedup",
                 "excessive_speedup_threshold"]
KB_FIELDS = {"compiled": False, "correctness": False, "metadata": {}, "runtime": -1.0,
             "runtime_stats": {}, "ref_runtime": -1.0, "ref_runtime_stats": {}}


def test_the_signature_and_the_result_are_kernelbenchs():
    assert list(inspect.signature(eval_kernel_against_ref).parameters)[:14] == KB_PARAMETERS
    assert KernelExecResult().model_dump() == KB_FIELDS


def _kb_call(custom: str) -> KernelExecResult:
    """As KernelBench's scripts call it (scripts/generate_and_eval_single_sample.py)."""
    return eval_kernel_against_ref(TASK, custom, verbose=False, measure_performance=True,
                                   num_correct_trials=5, num_perf_trials=100,
                                   backend="triton", precision=torch.float32, device="cpu")


@pytest.mark.slow  # two verifications on the CPU interpreter (~10 s each)
def test_a_correct_kernel_and_a_wrong_one():
    good = _kb_call(RELU)
    assert good.compiled and good.correctness, good.metadata
    assert good.runtime == -1.0  # the CPU interpreter times nothing
    json.dumps(good.model_dump())  # KernelBench stores results as JSON
    wrong = _kb_call(RELU.replace("tl.where(x > 0, x, 0.0)", "tl.where(x > 0, x, 1.0)"))
    assert wrong.compiled and not wrong.correctness
    assert wrong.metadata["warpsmith_status"] == "incorrect"
    assert wrong.metadata["correctness_issue"]


def test_a_kernel_that_does_not_build():
    res = _kb_call((ROOT / "kernels" / "bad" / "syntax_error.py").read_text())
    assert not res.compiled and not res.correctness
    assert res.metadata["compilation_error"]


def test_backends_and_precisions_it_cannot_honour_are_refused():
    with pytest.raises(ValueError, match="tilelang"):
        eval_kernel_against_ref(TASK, RELU, backend="tilelang")
    with pytest.raises(ValueError, match="precision"):
        eval_kernel_against_ref(TASK, RELU, precision=torch.int8)
