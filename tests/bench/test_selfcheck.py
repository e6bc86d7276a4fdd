"""`--generator reference`: each task's own reference verified with the rules that forbid
PyTorch off (issue 17), on the CPU at a size that fits or named as too large."""

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from warpsmith.bench import BenchSettings, bench, make_generator
from warpsmith.bench.selfcheck import ReferenceGenerator, torch_rules_off, write_reference_candidate
from warpsmith.bench.store import BenchStore
from warpsmith.config import PROFILES
from warpsmith.errors import UsageError
from warpsmith.store import VerdictStore
from warpsmith.tasks.suite import resolve_task
from warpsmith.verify import pipeline, static
from warpsmith.verify.pipeline import verify
from warpsmith.verify.timing import summary

ROOT = Path(__file__).parents[2]
TWINS = ROOT / "tests" / "tasks" / "fixtures" / "kernelbench" / "level1"
HUGE = Path(__file__).parent / "fixtures" / "huge"


def test_the_spec_makes_a_reference_generator():
    assert isinstance(make_generator("reference"), ReferenceGenerator)
    with pytest.raises(UsageError, match="takes no argument"):
        make_generator("reference:x")


def _items(suite: Path, db: Path) -> dict:
    result = bench(suite, "reference", BenchSettings(device="cpu"), db=db)
    assert result.status == "finished"
    store = BenchStore(db)
    try:
        return {i.title: i for i in store.items(result.bench_id)}
    finally:
        store.close()


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    db = tmp_path_factory.mktemp("selfcheck") / "db.sqlite"
    return _items(TWINS, db), db


def test_every_twin_passes_its_self_check_with_notes(checked):
    items = checked[0]
    assert list(items) == ["1_ReLU", "2_ReLU_large", "10_ReLU", "100_ReLU"]
    assert all(i.status == "passed" for i in items.values()), items
    assert "checked on the CPU at batch_size=" in items["2_ReLU_large"].note
    assert "admission: output 0 equals input 0" in items["1_ReLU"].note


def test_the_verdict_is_not_cached_for_a_real_candidate(checked):
    """The same source submitted as a candidate is judged by every rule."""
    items, db = checked
    store = VerdictStore(db)
    try:
        verdict = verify(str(TWINS / "1_ReLU.py"), items["1_ReLU"].candidate, device="cpu",
                         store=store)
    finally:
        store.close()
    assert verdict.status == "rejected" and not verdict.cached


def test_a_task_with_no_size_that_fits_is_named_too_large(tmp_path):
    [item] = _items(HUGE, tmp_path / "db.sqlite").values()
    assert item.status == "too_large" and "skipped on the CPU" in item.note


def test_the_rules_come_back_after_the_self_check():
    scan, dynamic, timed = static.scan, pipeline.dynamic_problems, summary.timed_problems
    with torch_rules_off():
        assert static.scan is not scan and summary.timed_problems is not timed
    assert static.scan is scan and pipeline.dynamic_problems is dynamic
    assert summary.timed_problems is timed


def test_the_self_check_passes_the_timed_calls_rules_too(tmp_path, monkeypatch):
    """On a GPU every timing block's watched call runs the rules again: with only the
    checked calls' rules off, every task's reference was rejected there (forbidden-op)."""
    monkeypatch.setattr(pipeline, "TIME_ON_CPU", True)
    task = resolve_task(str(TWINS / "10_ReLU.py"))
    candidate = write_reference_candidate(task, tmp_path)
    profile = replace(PROFILES["quick"], compile_modes=())  # compiling on the CPU: a minute
    with torch_rules_off():
        verdict = verify(task, candidate, device="cpu", profile=profile, store=None,
                         use_cache=False)
    assert verdict.status == "passed", verdict.feedback
    assert verdict.timing_measured and verdict.speedup_vs_eager > 0


def test_a_verifier_that_runs_out_of_memory_names_the_task_too_large(tmp_path, monkeypatch):
    import torch

    def out_of_memory(*args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 12.00 GiB")

    monkeypatch.setattr(pipeline, "verify", out_of_memory)
    items = _items(TWINS, tmp_path / "db.sqlite")
    assert {i.status for i in items.values()} == {"too_large"}
    assert "OutOfMemoryError: CUDA out of memory" in items["1_ReLU"].note


def test_a_16_bit_task_whose_model_holds_float32_parameters_passes(tmp_path):
    """The task's DTYPE casts the reference model; the candidate's model built the same way
    (nn.Linear in a float16 task) gets its weights in that dtype too, not a dtype error."""
    suite = tmp_path / "level1"
    suite.mkdir()
    builtin = ROOT / "src" / "warpsmith" / "tasks" / "builtin" / "level1" / "linear_fp16.py"
    (suite / "linear_fp16.py").write_text(builtin.read_text())
    items = _items(suite, tmp_path / "db.sqlite")
    assert items["linear_fp16"].status == "passed", items["linear_fp16"].verdict


def test_a_reference_that_is_not_deterministic_is_the_tasks_error(tmp_path):
    """Dropout in training mode: the task cannot be verified as written, which the self-check
    says as the task's error (what to change: MODE), not as the verifier's."""
    suite = tmp_path / "level2"
    suite.mkdir()
    shutil.copy(ROOT / "tests" / "tasks" / "fixtures" / "kb_semantics" / "66_Matmul_Dropout.py",
                suite)
    [item] = _items(suite, tmp_path / "db.sqlite").values()
    assert item.status == "task_error", item
    assert "not deterministic" in item.note


CLOSURE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """A layer reached through a lambda the constructor made (KernelBench level3/44's mlpf)."""

    def __init__(self, features):
        super().__init__()
        self.fc = nn.Linear(features, features)
        fc = self.fc
        self.run = lambda x: torch.tanh(fc(x))

    def forward(self, x):
        return self.run(x)


batch_size = 4
features = 24


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
'''


def test_a_layer_a_constructor_s_closure_captured_is_in_the_float64_copy_too(tmp_path):
    """A deepcopy of the model shares the closure's float32 layer: its float64 copy raised
    'mat1 and mat2 must have the same dtype'. The copy is now built again from the seed."""
    suite = tmp_path / "level3"
    suite.mkdir()
    (suite / "1_Closure.py").write_text(CLOSURE)
    [item] = _items(suite, tmp_path / "db.sqlite").values()
    assert item.status == "passed", item
