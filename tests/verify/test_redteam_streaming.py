"""Red-team fixes on the streamed calls and the memory plan that the CPU corpus cannot show
(tests/kernels/redteam/E48_*, E49_*): a faked out-of-memory is never the machine's, and a
frame of many tiny outputs is refused from its descriptors, never unpickled."""

import time
from types import SimpleNamespace

import pytest
import torch

from warpsmith.config import PROFILES
from warpsmith.tasks.suite import resolve_task
from warpsmith.verify.checks import collect
from warpsmith.verify.checks.reference import prepare
from warpsmith.verify.child.integrity import OomWatch
from warpsmith.verify.protocol import Malformed


def test_only_an_out_of_memory_the_allocator_saw_counts():
    watch = OomWatch()
    genuine = torch.OutOfMemoryError("CUDA out of memory")
    assert watch.evidence(genuine) is None  # raised, but nothing failed in the allocator
    watch._seen(0, 1 << 30, 0, 0)
    assert watch.evidence(genuine) == 1 << 30

    class OutOfMemoryError(RuntimeError):  # the candidate's namesake
        pass

    assert watch.evidence(OutOfMemoryError("CUDA out of memory")) is None
    assert watch.evidence(MemoryError()) is None


def test_many_tiny_outputs_are_refused_from_their_descriptors(monkeypatch):
    """E49: tens of thousands of tiny outputs took the trusted side minutes to unpickle, time
    not counted against the candidate's deadline. Nothing is unpickled now, and the count
    is bounded by the frame's 1 MiB header: 20000 descriptors are read as claims, in well
    under a second, and the call is wrong by its count (`incorrect`, as on a GPU)."""
    task = resolve_task("level1/relu")
    prepared = prepare(task, [task.shapes[0].name], PROFILES["quick"], "cpu")
    reader = collect.CaseReader(task, prepared, "cpu", {})
    reader.request({"frame": "inputs"}, b"")

    def no_load(*a, **k):
        raise AssertionError("the payload was unpickled")

    monkeypatch.setattr(torch, "load", no_load)
    descs = [{"dtype": "float32", "shape": [1]}] * 20000
    start = time.perf_counter()
    [result] = reader({"frame": "case", "call": 0, "outputs": descs}, b"\0" * 4 * 20000)
    assert time.perf_counter() - start < 5
    assert not result.ok and result.problem == "20000 outputs, expected 1"


def _reader_on_gpu(monkeypatch, others_before: int, others_now: int):
    reader = object.__new__(collect.CaseReader)
    reader.task = resolve_task("level1/relu")
    reader.prepared = SimpleNamespace(timed_shape=reader.task.shapes[-1].name)
    reader.device, reader.others = "cuda", others_before
    reader.before_blame = None  # no baselines' process to end
    monkeypatch.setattr(collect, "others_bytes", lambda: others_now)
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    return reader


def test_our_out_of_memory_is_the_candidates_when_its_process_held_the_memory(monkeypatch):
    """E48: a worker that allocates and holds far beyond its share makes the trusted side's
    reference run out of memory; that is not the machine's limit."""
    reader = _reader_on_gpu(monkeypatch, 1 << 30, 60 << 30)
    with pytest.raises(Malformed, match="beyond its share"):
        reader._blame_if_held()
    _reader_on_gpu(monkeypatch, 1 << 30, 1 << 30)._blame_if_held()  # the plan fell short
