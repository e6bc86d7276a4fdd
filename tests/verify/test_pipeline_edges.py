"""verify() at its edges: what it is handed is never an exception out of it, and what the
machine decided is never kept as the candidate's."""

from dataclasses import replace
from pathlib import Path

from warpsmith.config import PROFILES
from warpsmith.store import VerdictStore
from warpsmith.verify.pipeline import parse_driver, verify

BAD = Path(__file__).parent.parent / "kernels" / "bad"


def test_a_binary_candidate_is_a_verdict_not_an_exception(tmp_path):
    blob = tmp_path / "blob.py"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe" + bytes(range(256)))
    v = verify("level1/relu", blob, device="cpu")
    assert v.status == "compile_error" and "not Python source text" in v.reasons[0], v
    assert v.feedback


def test_a_timeout_is_not_stored_as_the_candidates(tmp_path):
    store = VerdictStore(tmp_path / "v.sqlite")
    v = verify("level1/relu", BAD / "timeout_loop.py", device="cpu", store=store,
               profile=replace(PROFILES["quick"], timeout_s=8))
    assert v.status == "timeout", v.feedback
    assert store.get(v.cache_key) is None  # a loaded machine's timeout is decided again
    store.close()


def test_the_nvidia_driver_version_is_read_from_the_modules_own_line():
    text = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  9 "
            "2025\nGCC version:  gcc version 13.3.0\n")
    assert parse_driver(text) == "580.159.04"
    open_text = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release"
    assert parse_driver(open_text) == "570.86.15"
    assert parse_driver("nothing here") is None


FLOAT32_INSIDE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """x @ W with W made inside forward at the default dtype (float32)."""

    def forward(self, x):
        return x @ torch.ones(features, features)


features = 12


def get_inputs():
    return [torch.randn(4, features)]


def get_init_inputs():
    return []
'''


def test_a_reference_whose_float64_copy_cannot_run_is_the_tasks_error(tmp_path):
    """The float64 copy meets the float32 tensors its forward makes (KernelBench's
    level3/35_LSTM: torch.randn for h0): an error about the task, which says what to change,
    not the verifier's RuntimeError, and never the candidate's verdict."""
    import pytest

    from warpsmith.errors import TaskError

    task = tmp_path / "matmul_inside.py"
    task.write_text(FLOAT32_INSIDE)
    with pytest.raises(TaskError, match="float64 copy.*cannot run.*x.dtype"):
        verify(str(task), Path(__file__).parent.parent / "kernels" / "good" / "relu_triton.py",
               device="cpu")


def test_the_store_keeps_the_candidate_s_absolute_path(tmp_path, monkeypatch):
    """From Python as from the CLI: the verdict names the file as given, the store where it is."""
    import shutil

    shutil.copy(Path(__file__).parent.parent / "kernels" / "good" / "relu_triton.py",
                tmp_path / "mine.py")
    monkeypatch.chdir(tmp_path)
    store = VerdictStore(tmp_path / "v.sqlite")
    try:
        v = verify("level1/relu", "mine.py", device="cpu", store=store)
        assert v.status == "passed" and v.candidate == "mine.py", v.feedback
        assert store.get(v.cache_key).candidate == str(tmp_path / "mine.py")
    finally:
        store.close()
