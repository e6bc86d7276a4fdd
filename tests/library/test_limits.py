"""Limits of the generator: a graph too deep for it, or an exception inside it, declines the
one task with a reason; neither ends `coverage` or `generate` for the others."""

import inspect
from pathlib import Path

from warpsmith.library import NotCovered, coverage, gemm, generate
from warpsmith.tasks import resolve_task

OWN = Path(__file__).parent / "tasks"
RNN = OWN / "rnn_unrolled.py"  # 6 steps: 12 products, 6 cat prologues, placed one per level


def test_deep_chain_declines_past_the_limit(monkeypatch):
    monkeypatch.setattr(gemm, "MAX_DEPTH", 4)
    found = generate(RNN)
    assert isinstance(found, NotCovered)
    assert "generator limit" in found.reason


def test_deep_chain_past_the_limit_at_any_count(monkeypatch):
    """Fewer stored values than the limit, but their prologues take levels too: the level
    check in _place_tail declines it rather than the count in match."""
    monkeypatch.setattr(gemm, "MAX_DEPTH", 13)
    found = generate(RNN)
    assert isinstance(found, NotCovered)
    assert "placed one after another: a generator limit" in found.reason


def test_deep_chain_nests_past_the_default_recursion_limit(monkeypatch):
    """A chain deeper than Python's default stack allows is placed or declined, never a
    RecursionError (deep_stack raises the limit while a graph is placed)."""
    import sys

    task, old = resolve_task(str(RNN)), sys.getrecursionlimit()
    here = len(inspect.stack(0))
    sys.setrecursionlimit(here + 60)  # the RNN's 18 levels take about 100 frames
    try:
        rows = coverage([task])
    finally:
        sys.setrecursionlimit(old)
    assert rows[0].family is not None, rows[0].reason


def test_an_exception_in_one_task_is_its_row(monkeypatch):
    from warpsmith import library

    def broken(task):
        if "rnn_unrolled" in task.name:
            raise ValueError("boom")
        return real(task)

    real = library.plan_task
    monkeypatch.setattr(library, "plan_task", broken)
    tasks = [resolve_task(str(RNN)), resolve_task(str(OWN / "conv2d_plain.py"))]
    rows = coverage(tasks)
    assert rows[0].family is None and "ValueError: boom" in rows[0].reason
    assert "generator limit or bug" in rows[0].reason
    assert rows[1].family == "conv"


def test_recursion_error_is_a_generator_limit(monkeypatch):
    from warpsmith import library

    def deep(task):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(library, "plan_task", deep)
    found = generate(RNN)
    assert isinstance(found, NotCovered) and "generator limit" in found.reason



def test_the_source_limit_is_the_verifiers(monkeypatch):
    from warpsmith import library
    from warpsmith.verify.static import MAX_SOURCE_CHARS

    assert library.MAX_SOURCE_CHARS == MAX_SOURCE_CHARS
    monkeypatch.setattr(library, "MAX_SOURCE_CHARS", 1000)  # a candidate longer is none
    found = generate(RNN)
    assert isinstance(found, NotCovered) and "the verifier reads" in found.reason
    assert "the verifier reads" in coverage([resolve_task(str(RNN))])[0].reason
