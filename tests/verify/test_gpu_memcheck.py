"""compute-sanitizer's memcheck on a GPU (verify/checks/memcheck.py): an unmasked load past the
input's end, which compares equal wherever it stays in mapped memory, is `runtime_error`;
an honest kernel is clean. Runs on the GPU machine (`pytest -m gpu`)."""

import shutil
from pathlib import Path

import pytest
import torch

from warpsmith.tasks import resolve_task
from warpsmith.types import Verdict
from warpsmith.verify import pipeline

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
              pytest.mark.skipif(shutil.which("compute-sanitizer") is None,
                                 reason="needs compute-sanitizer")]
KERNELS = Path(__file__).parents[1] / "kernels"


def _judged(path: Path) -> Verdict:
    passed = Verdict(status="passed", task="level1/relu", candidate=str(path), device="cuda",
                     correct=True, shapes_checked=("small",))
    source = pipeline.Source(path, path.read_bytes(), path.read_text())
    return pipeline.memory_safety(resolve_task("level1/relu"), source, passed)


def test_an_unmasked_load_past_the_end_is_named():
    verdict = _judged(KERNELS / "redteam" / "E17_unmasked_load_masked_store.py")
    assert verdict.status == "runtime_error", verdict.warnings
    assert "Invalid __global__ read" in verdict.reasons[0]


def test_an_honest_kernel_is_clean():
    verdict = _judged(Path(pipeline.__file__).parents[1] / "examples" / "relu_triton.py")
    assert verdict.status == "passed"
    assert any(w.startswith("memcheck: no out-of-bounds") for w in verdict.warnings), \
        verdict.warnings
