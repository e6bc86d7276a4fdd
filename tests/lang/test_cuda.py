"""The compile-only nvcc check of CUDA candidates on a machine without a GPU (issue 17):
a load_inline candidate in KernelBench's form compiles, and a check slower than its limit is
needs_gpu with the reason, never compile_error."""

import shutil
from pathlib import Path

import pytest

from warpsmith.lang import cuda
from warpsmith.verify.pipeline import verify

FIXTURES = Path(__file__).parent / "fixtures"
TASK, EXAMPLE = FIXTURES / "scaled_add_task.py", FIXTURES / "scaled_add_load_inline.py"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here")


def test_the_example_source_is_found_and_sees_torch():
    [src] = cuda.extract_sources(EXAMPLE.read_text())
    assert src.uses_torch and "#include <torch/extension.h>" in src.code


def test_includes_hold_python_and_torch():
    folders = cuda.torch_includes()
    assert any((Path(f) / "Python.h").is_file() for f in folders)
    assert any((Path(f) / "torch" / "extension.h").is_file() for f in folders)


@needs_nvcc
@pytest.mark.slow
def test_a_load_inline_candidate_compiles_with_nvcc():
    result = cuda.compile_check(cuda.extract_sources(EXAMPLE.read_text()))
    assert result.ok and result.checked and not result.note, result.log


@needs_nvcc
def test_a_check_past_its_limit_is_needs_gpu_with_the_reason(monkeypatch):
    monkeypatch.setattr(cuda, "COMPILE_TIMEOUT_S", 0.05)
    verdict = verify(str(TASK), EXAMPLE, device="cpu", profile="thorough")
    assert verdict.status == "needs_gpu", verdict.reasons
    assert "did not finish within 0.05 s" in verdict.reasons[0]
    assert "can only run on a GPU" in verdict.reasons[-1]


def test_the_quick_profile_says_needs_gpu_in_seconds_and_why_nothing_was_compiled():
    """torch's headers cost nvcc 40-47 s here before a CPU-only machine could say
    needs_gpu (issue 32): the quick profile leaves them to --profile thorough."""
    import time

    start = time.perf_counter()
    verdict = verify(str(TASK), EXAMPLE, device="cpu", use_cache=False)
    assert verdict.status == "needs_gpu", verdict.reasons
    assert time.perf_counter() - start < 20
    assert "can only run on a GPU" in verdict.reasons[-1]
    expected = "--profile thorough" if shutil.which("nvcc") else "no nvcc here"
    assert expected in verdict.reasons[0]


def test_a_source_in_an_f_string_of_module_constants_is_read():
    from warpsmith.lang.cuda import extract_sources

    src = ('TILE = 16\nSRC = f"__global__ void k(float* x) {{ x[0] = {TILE}; }}"\n'
           'from torch.utils.cpp_extension import load_inline\n'
           'm = load_inline(name="m", cpp_sources="", cuda_sources=SRC)\n')
    assert [s.code for s in extract_sources(src)] == ["__global__ void k(float* x) { x[0] = 16; }"]


def test_nothing_to_check_is_said():
    from warpsmith.lang.cuda import compile_check

    result = compile_check([])
    assert not result.checked and result.note  # the verdict says nvcc checked nothing
