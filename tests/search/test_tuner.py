"""The generic tuner. On the CPU: variants of a good candidate pass the full verifier through
the interpreter, ranking is skipped with a note, the ranking worker's failures come back as
data. On a GPU (`pytest -m gpu`): the ranking worker times variants and the strategy tunes."""

from pathlib import Path

import pytest
import torch

from warpsmith.search.budget import Budget
from warpsmith.search.context import RunContext, Settings
from warpsmith.search.knobs import find_knobs
from warpsmith.search.tuner import (
    TUNE_CHAIN,
    RankSettings,
    Tune,
    Variant,
    _ranking,
    confirm,
    make_variants,
    rank,
    tune_best,
)
from warpsmith.store.runs import RunStore
from warpsmith.tasks.suite import resolve_task
from warpsmith.verify.pipeline import verify

GOOD = Path(__file__).resolve().parent.parent / "kernels" / "good"
RELU = GOOD / "relu_triton.py"


def context(tmp_path, device="cpu", start=None, task="level1/relu") -> RunContext:
    store = RunStore(tmp_path / "runs.sqlite")
    settings = Settings(device=device, start=str(start) if start else None)
    run_id = store.new_run(task, "library", "tune", {})

    def verify_fn(t, path):
        return verify(t, path, device=device)

    return RunContext(run_id, resolve_task(task), None, store, verify_fn, Budget(), settings,
                      tmp_path)


def pick(variants, found, **moves):
    """The variant that moves exactly the knobs of the given kinds to the given values."""
    kinds = {k.name: k.kind for k in found.knobs}
    for v in variants:
        moved = {kinds[n]: x for n, x in v.values.items()
                 if x != next(k.value for k in found.knobs if k.name == n)}
        if moved == moves:
            return v
    raise AssertionError(f"no variant with {moves}")


def test_variants_of_a_good_candidate_pass_the_full_verifier_through_the_interpreter(tmp_path):
    source = RELU.read_text()
    found = find_knobs(source)
    variants = make_variants(source, found)
    chosen = [pick(variants, found, block=128), pick(variants, found, warps=2)]
    ctx = context(tmp_path)
    start = ctx.attempt_source(source, note="start", chain=TUNE_CHAIN)
    assert start.passed, start.verdict.feedback
    kept = confirm(ctx, start, found, variants, None, [v.index for v in chosen])
    assert kept is not None and kept.passed, kept and kept.verdict.feedback
    assert kept.source == chosen[0].source and "BLOCK=128" in kept.source
    assert (kept.chain, kept.depth, kept.parent_id) == (TUNE_CHAIN, chosen[0].index, start.id)
    # untimed on the CPU: the variant passed but is not "faster", so the start stays best
    assert ctx.best.id == start.id
    second = verify(ctx.task, _write(tmp_path, chosen[1].source), device="cpu")
    assert second.status == "passed", second.feedback


def _write(tmp_path, source: str) -> Path:
    path = tmp_path / "variant.py"
    path.write_text(source)
    return path


def test_a_broken_variant_is_recorded_and_the_next_one_is_tried(tmp_path):
    source = RELU.read_text()
    found = find_knobs(source)
    variants = make_variants(source, found)
    good = pick(variants, found, block=512)
    broken = Variant(len(variants), {}, source.replace("tl.where(x > 0, x, 0.0)", "x"))
    variants = variants + [broken]
    ctx = context(tmp_path)
    start = ctx.attempt_source(source, note="start", chain=TUNE_CHAIN)
    kept = confirm(ctx, start, found, variants, None, [len(variants) - 1, good.index])
    assert kept.source == good.source
    tried = [a.status for a in ctx.store.attempts(ctx.run_id)]
    assert tried == ["passed", "incorrect", "passed"]


def test_tune_strategy_on_the_cpu_verifies_the_start_and_says_ranking_was_skipped(tmp_path):
    ctx = context(tmp_path, start=RELU)
    Tune().run(ctx)
    assert ctx.best is not None and ctx.best.passed
    assert "ranking skipped" in ctx.note and "CPU" in ctx.note
    assert len(ctx.store.attempts(ctx.run_id)) == 1
    assert tune_best(ctx) is None and ctx.note.count("ranking skipped") == 2


def test_tune_strategy_without_a_readable_start_says_why(tmp_path):
    ctx = context(tmp_path)
    Tune().run(ctx)
    assert "--start" in ctx.note and ctx.best is None
    (tmp_path / "b").mkdir()
    ctx = context(tmp_path / "b", start=tmp_path / "missing.py")
    Tune().run(ctx)
    assert "cannot read" in ctx.note


def test_ranking_worker_failures_come_back_as_data(tmp_path):
    """Where no GPU is, the worker fails building the task on CUDA: the error is reported
    through the result pipe, not raised, and the tuner would say the ranking failed."""
    if torch.cuda.is_available():
        pytest.skip("the worker succeeds on a GPU")
    source = RELU.read_text()
    variants = make_variants(source, find_knobs(source), limit=3)
    ranking = rank(resolve_task("level1/relu"), variants,
                   RankSettings(timeout_s=120, threads=1))
    assert ranking.error and not ranking.entries
    assert ranking.wall_s > 0


def test_ranking_orders_by_median_and_drops_failed_or_disagreeing_variants():
    report = {"phases": {"compile_s": 1.0}, "variants": [
        {"times_us": [100, 101, 99], "agrees": True},
        {"times_us": [80, 81, 79], "agrees": True},  # 1.25x: ranked first
        {"times_us": [50, 50, 50], "agrees": False},  # fast but wrong: dropped
        {"times_us": [], "agrees": False, "error": "first call: OutOfResources"},
        {"times_us": [99.5, 99, 100], "agrees": True},  # within the margin: not worth it
        {"times_us": [90, 90, 91], "agrees": True},
    ]}
    ranking = _ranking(report, 2.0, "", "", 6)
    assert ranking.faster() == [1, 5]
    assert ranking.predicted(1) == pytest.approx(1.25)
    assert ranking.configs_per_s == 3.0 and "6 configs" in ranking.summary()
    broken = _ranking({"variants": [{"times_us": [], "error": "load: boom"}]}, 1.0, "", "", 1)
    assert "start did not run" in broken.error and "boom" in broken.error
    assert _ranking(None, 1.0, "tail", "no report", 2).error == "no report"


def test_a_forged_ranking_report_is_read_as_absent_values_not_an_exception():
    """The variants ran in the ranking worker: whatever it writes is the candidate's."""
    forged = {"phases": {"compile_s": "x", "time_s": float("nan"), "setup_s": 2.0},
              "error": ["no"], "variants": [
                  {"times_us": [100, "1", True, float("inf"), -5, 0], "agrees": True,
                   "compile_s": "3"},
                  {"times_us": "fast", "agrees": 1, "error": {"a": 1}},
                  {"times_us": [float("nan")], "agrees": True, "compile_s": float("inf")},
                  "not a dict"]}
    ranking = _ranking(forged, 1.0, "", "", 4)
    assert ranking.phases == {"setup_s": 2.0}
    assert [(e.median_us, e.samples) for e in ranking.entries] == [(100.0, 1), (None, 0),
                                                                 (None, 0), (None, 0)]
    assert ranking.entries[0].compile_s == 0.0 and not ranking.entries[1].agrees
    assert ranking.faster() == [] and ranking.error == "['no']"
    assert _ranking({"variants": "x", "phases": []}, 1.0, "", "", 2).error.startswith(
        "the start did not run")
    fast = {"times_us": [50.0], "agrees": True}  # entries stay at their variants' places
    shifted = _ranking({"variants": [{"times_us": [100.0], "agrees": True}, "junk", fast]},
                       1.0, "", "", 3)
    assert shifted.faster() == [2] and shifted.entries[1].error
    assert "start did not run" in _ranking({"variants": ["junk", fast]}, 1.0, "", "", 2).error


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_ranking_worker_times_every_variant_on_the_gpu():
    source = RELU.read_text()
    variants = make_variants(source, find_knobs(source), limit=12)
    ranking = rank(resolve_task("level1/relu"), variants, RankSettings(rounds=3))
    assert not ranking.error, ranking.error + ranking.log_tail
    assert len(ranking.entries) == len(variants) and ranking.start_us > 0
    assert sum(e.ok for e in ranking.entries) >= len(variants) - 2
    assert ranking.configs_per_s > 0 and ranking.phases["compile_s"] > 0


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_ranking_with_precompile_helpers_on_the_gpu():
    """Helpers forced on (parallel_after_s=0): they compile, the worker's own first calls then
    load from Triton's cache, and every variant still ranks."""
    source = RELU.read_text()
    variants = make_variants(source, find_knobs(source), limit=12)
    ranking = rank(resolve_task("level1/relu"), variants,
                   RankSettings(rounds=2, processes=4, parallel_after_s=0))
    assert not ranking.error, ranking.error + ranking.log_tail
    assert ranking.phases["precompile_s"] > 0, ranking.phases
    assert sum(e.ok for e in ranking.entries) >= len(variants) - 2
    print(ranking.summary())


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_tune_strategy_keeps_only_a_verified_variant_on_the_gpu(tmp_path):
    ctx = context(tmp_path, device="cuda", start=RELU)
    Tune().run(ctx)
    attempts = ctx.store.attempts(ctx.run_id)
    assert attempts[0].passed and attempts[0].verdict.timing_measured
    assert "configs ranked" in ctx.note, ctx.note  # the ranking ran and said how fast
    assert ctx.best.passed and ctx.best.verdict.speedup_vs_eager >= \
        attempts[0].verdict.speedup_vs_eager


def test_ranking_worker_runs_in_the_sandbox_and_a_failure_comes_back_as_data():
    """On the CPU the ranking worker cannot build GPU inputs: its error must arrive as a report
    through sandbox.run_worker (the framed message), not as a dead worker."""
    source = (GOOD / "relu_triton.py").read_text()
    ranking = rank(resolve_task("level1/relu"), make_variants(source, find_knobs(source), 4))
    assert "CUDA" in ranking.error and "without a report" not in ranking.error
    assert ranking.wall_s > 0


def _variant_files(tmp_path, limit: int) -> list[str]:
    """The relu start's first `limit` variants, written as files (variant 0 is the start)."""
    source = RELU.read_text()
    paths = []
    for v in make_variants(source, find_knobs(source), limit=limit):
        paths.append(str(tmp_path / f"variant_{v.index}.py"))
        Path(paths[-1]).write_text(v.source)
    return paths


def _cpu_job(tmp_path, monkeypatch, paths: list[str], **settings) -> dict:
    """A ranking job for the interpreter in tmp_path (job.json, the cwd helpers write to)."""
    import json

    job = {"task": str(resolve_task("level1/relu").path), "shape": "small", "seed": 3,
           "variants": paths, "device": "cpu", "job_dir": str(tmp_path)} | settings
    (tmp_path / "job.json").write_text(json.dumps(job))
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.chdir(tmp_path)
    return job


def _loaded(job: dict):
    """(task, inputs, entries) as the ranking worker has them before its compile phase."""
    from warpsmith.verify.child.rank import _Entry, _load, _setup

    task, inputs, spec = _setup(job, "cpu")
    entries = [_Entry(p) for p in job["variants"]]
    for i, entry in enumerate(entries):
        _load(entry, i, spec, "cpu")
    return task, inputs, entries


def test_precompile_helpers_make_each_variants_first_call_and_report_failures(
        tmp_path, monkeypatch):
    """The helper processes the ranking worker starts when compiling is slow, run here on the
    CPU (the interpreter): every variant in some helper's share, a broken one reported."""
    import json
    import time

    from warpsmith.verify.child.rank import precompile

    paths = _variant_files(tmp_path, limit=4)
    paths.append(str(tmp_path / "broken.py"))
    Path(paths[-1]).write_text("raise RuntimeError('broken on import')\n")
    job = _cpu_job(tmp_path, monkeypatch, paths, processes=2)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    indices = list(range(1, len(paths)))
    errors, done = precompile(job, indices, deadline=time.perf_counter() + 240)
    assert set(errors) == {len(paths) - 1} and "broken on import" in errors[len(paths) - 1]
    assert done == set(indices) - set(errors)
    shares = [json.loads((tmp_path / f"precompiled-{k}.json").read_text()) for k in (0, 1)]
    assert sorted(int(i) for share in shares for i in share) == indices  # all, split in two


def test_precompile_kills_a_helper_at_the_deadline(tmp_path, monkeypatch):
    import time

    from warpsmith.verify.child.rank import precompile

    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(60)\n")
    job = _cpu_job(tmp_path, monkeypatch, [str(RELU), str(slow)], processes=2)
    started = time.perf_counter()
    assert precompile(job, [1], deadline=started + 8) == ({}, set())  # cut short: no error
    assert time.perf_counter() - started < 20


def test_a_variant_that_kills_its_helper_drops_out(tmp_path, monkeypatch):
    import time

    from warpsmith.verify.child.rank import precompile

    crash = tmp_path / "crash.py"
    crash.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    job = _cpu_job(tmp_path, monkeypatch, [str(RELU), str(crash), str(RELU)], processes=1)
    errors, done = precompile(job, [1, 2], deadline=time.perf_counter() + 120)
    assert "crashed a precompile helper (SIGKILL)" in errors[1] and done == set()


def test_compile_phase_with_helpers_and_a_budget_on_the_cpu(tmp_path, monkeypatch):
    """The ranking worker's compile phase (on the GPU in real use) run here through the
    interpreter: with helpers forced on (parallel_after_s=0: the threads start nothing),
    every variant agrees with the start; with no budget left after the start, the others
    drop out with a reason and no helper starts; with time to spare (parallel_after_s
    large), the threads compile everything and no helper starts. One worker thread: the
    interpreter patches triton.language globally, so two interpreted first calls at once
    can break each other (on a GPU nothing is interpreted)."""

    from warpsmith.verify.child.rank import _compile_all, _no_grad_tf32

    paths = _variant_files(tmp_path, limit=4)
    job = _cpu_job(tmp_path, monkeypatch, paths, seed=5, processes=2, parallel_after_s=0,
                   threads=1)
    for budget, agreed in ((240, len(paths)), (0, 1)):
        task, inputs, entries = _loaded(job)
        phases = {}
        with _no_grad_tf32(task):
            _compile_all(entries, inputs, job | {"compile_budget_s": budget}, phases)
        assert sum(e.agrees for e in entries) == agreed, [e.error for e in entries]
        assert ("precompile_s" in phases) == (budget > 0)  # helpers only with time left
    assert all(e.error == "not compiled within the compile budget" for e in entries[1:])
    task, inputs, entries = _loaded(job)
    phases = {}
    with _no_grad_tf32(task):
        _compile_all(entries, inputs, job | {"parallel_after_s": 600}, phases)
    assert all(e.agrees for e in entries) and "precompile_s" not in phases


def test_variants_a_helper_compiled_keep_their_place_after_the_budget(tmp_path, monkeypatch):
    """One helper is still on a slow variant at the deadline: the variants the other helpers
    compiled are cached and still rank; only what was not compiled drops out."""

    from warpsmith.verify.child.rank import _compile_all, _no_grad_tf32

    paths = _variant_files(tmp_path, limit=5)
    slow = tmp_path / "slow.py"
    slow.write_text(RELU.read_text().replace("    def forward(self, x):",
                                   "    def forward(self, x):\n        __import__('time')"
                                   ".sleep(40)"))
    paths.append(str(slow))  # index 5: last of the second helper's share [3, 5]
    job = _cpu_job(tmp_path, monkeypatch, paths, seed=5, processes=2, parallel_after_s=0,
                   threads=1, compile_budget_s=25)
    task, inputs, entries = _loaded(job)
    with _no_grad_tf32(task):
        _compile_all(entries, inputs, job, {})
    assert [e.agrees for e in entries] == [True] * 5 + [False], [e.error for e in entries]
    assert entries[5].error == "not compiled within the compile budget"
