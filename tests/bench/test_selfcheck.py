"""`--generator reference`: each task's own reference verified with the rules that forbid
PyTorch off (issue 17), on the CPU at a size that fits or named as too large."""

from pathlib import Path

import pytest

from warpsmith.bench import BenchSettings, bench, make_generator
from warpsmith.bench.selfcheck import ReferenceGenerator, torch_rules_off
from warpsmith.bench.store import BenchStore
from warpsmith.errors import UsageError
from warpsmith.store import VerdictStore
from warpsmith.verify import pipeline, static
from warpsmith.verify.pipeline import verify

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
    scan, dynamic = static.scan, pipeline._dynamic_problems
    with torch_rules_off():
        assert static.scan is not scan
    assert static.scan is scan and pipeline._dynamic_problems is dynamic


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
