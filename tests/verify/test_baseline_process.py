"""Eager and torch.compile timed in a process of their own (verify/timing/baseline_process.py), by
the trusted side's clock through the same round trip as the candidate's blocks. On the CPU:
the protocol, the fallback when that process fails, and that it never outlives its
verification; what it does to the ratios is measured on a GPU (docs/benchmarks/verifier.md)."""

import os
from dataclasses import replace
from pathlib import Path

import pytest

from warpsmith.config import PROFILES
from warpsmith.verify import pipeline
from warpsmith.verify.pipeline import verify
from warpsmith.verify.timing import baseline_process
from warpsmith.verify.timing.baselines import Baselines

GOOD = Path(__file__).parents[1] / "kernels" / "good"
BAD = Path(__file__).parents[1] / "kernels" / "bad"
PROFILE = replace(PROFILES["quick"], timeout_s=120, compile_modes=(), warmup_s=0.0, blocks=3)


@pytest.fixture
def made(monkeypatch):
    """Every BaselineProcess a verification starts, and every block it times."""
    monkeypatch.setattr(pipeline, "TIME_ON_CPU", True)
    seen: dict = {"processes": [], "blocks": []}
    cls = baseline_process.BaselineProcess
    init, block = cls.__init__, cls.block

    def spy_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        seen["processes"].append(self)

    def spy_block(self, record, chunks):
        seen["blocks"].append(record)
        return block(self, record, chunks)

    monkeypatch.setattr(cls, "__init__", spy_init)
    monkeypatch.setattr(cls, "block", spy_block)
    return seen


def _gone(process) -> bool:
    return process.proc.proc.poll() is not None and not os.path.exists(process.scratch)


def test_baselines_are_timed_in_their_own_process_and_it_ends(made):
    v = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=PROFILE,
               store=None)
    assert v.status == "passed", v.feedback
    assert v.timing_measured and v.speedup_vs_eager > 0
    assert not any("trusted process instead" in w for w in v.warnings), v.warnings
    assert [r["impl"] for r in made["blocks"]] == ["eager"] * PROFILE.blocks
    assert all(r["watch"] == -1 and sorted(r["order"]) == list(range(len(r["order"])))
               for r in made["blocks"])
    assert len(made["processes"]) == 1 and _gone(made["processes"][0])
    startup = v.environment["clock"]["baselines_startup_s"]  # where the timing's wait went
    assert set(startup) == {"ready_after_s", "waited_s", "build_s", "eager_warm_s"}, startup
    assert startup["ready_after_s"] >= startup["build_s"] + startup["eager_warm_s"] > 0
    assert 0 <= startup["waited_s"] <= startup["ready_after_s"]


def test_the_old_way_starts_no_process(made):
    v = verify("level1/relu", GOOD / "relu_triton.py", device="cpu",
               profile=replace(PROFILE, baselines="here"), store=None)
    assert v.status == "passed", v.feedback
    assert made["processes"] == [] and made["blocks"] == []


def test_an_incorrect_candidate_is_not_timed_and_leaves_no_process_behind(made):
    """An output found wrong before the timing: END at once (`incorrect` whatever the clock
    would say), and the baselines' process stopped unused."""
    v = verify("level1/relu", BAD / "incorrect_partial_write.py", device="cpu",
               profile=PROFILE, store=None)
    assert v.status == "incorrect", v.feedback
    assert made["blocks"] == [] and "timing" not in v.stage_seconds
    assert all(_gone(p) for p in made["processes"])


def test_a_failed_baselines_process_is_the_verifiers_not_the_candidates(made, monkeypatch):
    """The process dies at its start: the baselines are timed in the trusted process, with a
    note, and the candidate passes as it would have."""
    monkeypatch.setattr(baseline_process, "PROGRAM", ("-c", "import sys; sys.exit(3)"))
    v = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=PROFILE,
               store=None)
    assert v.status == "passed", v.feedback
    assert v.timing_measured and v.speedup_vs_eager > 0
    assert any("trusted process instead" in w for w in v.warnings), v.warnings
    assert all(_gone(p) for p in made["processes"])


def test_a_process_that_fails_mid_way_leaves_no_mixed_clock(made, monkeypatch):
    """Its second block fails: every baseline is timed again here from then on, and the
    times it had taken are dropped (a ratio never mixes the two ways)."""
    block = baseline_process.BaselineProcess.block
    timed = []

    def fail_second(self, record, chunks):
        timed.append(record)
        if len(timed) == 2:
            raise baseline_process.BaselineFailed("the baselines' process broke off")
        return block(self, record, chunks)

    monkeypatch.setattr(baseline_process.BaselineProcess, "block", fail_second)
    kept = []
    original = Baselines.timing

    def spy_timing(self, worker_timing):
        kept.append(original(self, worker_timing))
        return kept[-1]

    monkeypatch.setattr(Baselines, "timing", spy_timing)
    v = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=PROFILE,
               store=None)
    assert v.status == "passed", v.feedback
    assert any("broke off" in w and "trusted process instead" in w for w in v.warnings)
    assert len(timed) == 2 and len(kept[0]["times_us"]["eager"]) == PROFILE.blocks - 1
    assert all(_gone(p) for p in made["processes"])


def test_a_process_that_fails_after_its_ready_frame_is_replaced_whole(made, monkeypatch):
    """It warmed up, then failed while the sets were handed over: the baselines it named are
    warmed up here afresh, none left half-made."""
    def broken_sets(self, record):
        raise baseline_process.BaselineFailed("the baselines' process sent no slots frame")

    monkeypatch.setattr(baseline_process.BaselineProcess, "sets", broken_sets)
    v = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=PROFILE,
               store=None)
    assert v.status == "passed", v.feedback
    assert any("no slots frame" in w for w in v.warnings), v.warnings
    assert made["blocks"] == [] and all(_gone(p) for p in made["processes"])


KEPT = replace(PROFILE, baselines="kept")


@pytest.fixture
def kept(made):
    """baselines="kept": every process a test leaves kept is closed after it."""
    yield made
    baseline_process.KEPT.close()
    assert all(_gone(p) for p in made["processes"])


def test_a_kept_process_times_the_next_candidate_of_the_task_without_starting_again(kept):
    first = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=KEPT,
                   store=None)
    held = baseline_process.KEPT.held
    assert held is not None and held.proc.proc.poll() is None  # kept, running, not stopped
    second = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=KEPT,
                    store=None)
    assert first.status == second.status == "passed", (first.feedback, second.feedback)
    assert len(kept["processes"]) == 1  # one start for both
    assert [r["impl"] for r in kept["blocks"]] == ["eager"] * 2 * PROFILE.blocks
    assert "reused" not in first.environment["clock"]["baselines_startup_s"]
    assert second.environment["clock"]["baselines_startup_s"]["reused"] == 1.0
    assert second.timing_measured and second.speedup_vs_eager > 0
    assert not any("trusted process instead" in w for w in second.warnings), second.warnings


@pytest.mark.parametrize("bad, status", [("incorrect_partial_write.py", "incorrect"),
                                         ("runtime_error.py", "runtime_error")])
def test_a_candidate_that_fails_before_its_timing_leaves_the_kept_process(kept, bad, status):
    """Found wrong, or ended, before its timing: END in place of the sets, and the process
    kept for the next candidate (LLM candidates fail this way often)."""
    wrong = verify("level1/relu", BAD / bad, device="cpu", profile=KEPT, store=None)
    right = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=KEPT,
                   store=None)
    assert (wrong.status, right.status) == (status, "passed"), (wrong.status, right.feedback)
    assert len(kept["processes"]) == 1 and right.timing_measured


def test_another_tasks_verification_closes_the_kept_process_first(kept):
    verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=KEPT, store=None)
    relu = baseline_process.KEPT.held
    seen = []
    plan = pipeline.memplan.plan

    def spy_plan(*args, **kwargs):  # the other task's memory plan: made once it is gone
        seen.append(relu.proc.proc.poll() is not None)
        return plan(*args, **kwargs)

    pipeline.memplan.plan = spy_plan
    try:
        v = verify("level1/sigmoid", GOOD / "sigmoid_triton.py", device="cpu", profile=KEPT,
                   store=None)
    finally:
        pipeline.memplan.plan = plan
    assert v.status == "passed", v.feedback
    assert seen == [True] and _gone(relu)
    assert len(kept["processes"]) == 2 and baseline_process.KEPT.held is not relu


@pytest.fixture
def spares(made, monkeypatch):
    """A prestart policy that keeps spares (the GPU's default is `ahead`; the CPU's `off`)."""
    monkeypatch.setenv("WARPSMITH_PRESTART", "after")
    yield made
    baseline_process.SPARES.close()
    pipeline.prestart.SPARES.close()


def test_the_next_verification_takes_a_baselines_process_started_before_it(spares):
    """Started after the first verification's outcome, waiting with its imports done; the
    second verification (another task: nothing of the first's is in it) gives it its job."""
    first = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=PROFILE,
                   store=None)
    spare = baseline_process.SPARES._spare
    assert spare is not None and spare[1].proc.poll() is None
    second = verify("level1/sigmoid", GOOD / "sigmoid_triton.py", device="cpu",
                    profile=PROFILE, store=None)
    assert first.status == second.status == "passed", (first.feedback, second.feedback)
    assert spares["processes"][1].proc is spare[1]
    assert all(_gone(p) for p in spares["processes"])
    assert second.timing_measured and not any("trusted process instead" in w
                                              for w in second.warnings), second.warnings


def test_a_spare_that_died_waiting_is_replaced(spares):
    verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=PROFILE, store=None)
    dead = baseline_process.SPARES._spare[1]
    dead.proc.kill()
    dead.proc.wait()
    v = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=PROFILE,
               store=None)
    assert v.status == "passed" and v.timing_measured, v.feedback
    assert spares["processes"][1].proc is not dead
    assert not any("trusted process instead" in w for w in v.warnings), v.warnings


def test_a_kept_compiled_reference_is_reused_whatever_its_truth():
    """A kept process's compiled implementation is taken from its last job as it is: `made.get
    (name) or torch.compile(...)` asked a compiled module for its truth, which Python reads from
    __len__ ("Model does not support len()"), and every second verification on the H100 lost
    its torch.compile baseline."""
    from warpsmith.tasks import resolve_task
    from warpsmith.types import Shape
    from warpsmith.verify.checks.reference import prepare
    from warpsmith.verify.child import reference_worker

    task = resolve_task("level1/relu")
    name = task.shapes[0].name
    spec = prepare(task, [name], PROFILE, "cpu", timed=False).shapes[name]

    class NoTruth:  # what torch.compile's module is to `or`: a truth test that raises
        def __init__(self, fn):
            self.fn = fn

        def __len__(self):
            raise TypeError("Model does not support len()")

        def __call__(self, *args):
            return self.fn(*args)

    eager = reference_worker.build_model(task, Shape(name, spec["values"]), "cpu")
    kept = NoTruth(eager)
    job = {"device": "cpu", "compile_modes": ["default"], "warmup_s": 0.0}
    impls, notes, _, _ = reference_worker._impls(task, Shape(name, spec["values"]), spec, job,
                                                 {}, eager, {"compile": kept})
    assert notes == [] and impls["compile"] is kept


def test_ahead_the_spare_taken_was_started_a_verification_before(spares, monkeypatch):
    """`ahead`: the next spare starts once this verification has taken its own, so the one
    each takes had the whole last verification to get ready (refilled before the take, the
    one taken was always the one just started)."""
    import time

    monkeypatch.setenv("WARPSMITH_PRESTART", "ahead")
    began = []
    for _ in range(3):
        began.append(time.perf_counter())
        v = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=PROFILE,
                   store=None)
        assert v.status == "passed" and v.timing_measured, v.feedback
        waiting = baseline_process.SPARES._spare
        assert waiting is not None  # the next one's, started during this one
        assert all(p.proc is not waiting[1] for p in spares["processes"])
    started = [p.proc.start for p in spares["processes"]]
    assert len(started) == 3 and started[2] < began[2] and started[1] < began[1]


def test_a_deferred_process_gets_its_job_only_after_the_checks(made, monkeypatch):
    """A plan that does not fit with the baselines warming up beside the checks defers them
    (memplan.Plan.deferred): the process is told its job (and so allocates) only when the
    timer first asks, after every checked call; the verdict is the same."""
    from dataclasses import replace as _replace

    from warpsmith.verify.checks import collect

    events = []
    ask, call = baseline_process.BaselineProcess._ask, collect.CaseReader.__call__
    monkeypatch.setattr(baseline_process.BaselineProcess, "_ask",
                        lambda self: (events.append("asked" if self.pending else "again"),
                                      ask(self)))
    monkeypatch.setattr(collect.CaseReader, "__call__",
                        lambda self, *a: (events.append("checked"), call(self, *a))[1])
    planned = pipeline._planned
    monkeypatch.setattr(pipeline, "_planned", lambda *a: _replace(
        planned(*a), deferred=True))
    v = verify("level1/relu", GOOD / "relu_triton.py", device="cpu", profile=PROFILE,
               store=None)
    assert v.status == "passed" and v.timing_measured, v.feedback
    assert len(made["processes"]) == 1 and made["processes"][0].deferred
    first = events.index("asked")
    assert events.count("checked") > 0 and "checked" not in events[first:], events
