"""The memory plan and the `too_large` status: the verifier's limits are never the
candidate's failure, never cached, and never an exception."""

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import torch

from warpsmith.config import PROFILES
from warpsmith.store import VerdictStore
from warpsmith.tasks.loader import load_task
from warpsmith.verify import pipeline
from warpsmith.verify.checks import memplan, reference
from warpsmith.verify.pipeline import verify

GOOD_RELU = Path(__file__).parent.parent / "kernels" / "good" / "relu_triton.py"
PROFILE = replace(PROFILES["quick"], timeout_s=120)

# KernelBench's level1/19_ReLU at its official size: 4096 x 393216 fp32, 6.4 GB a tensor.
OFFICIAL = Path(__file__).parents[1] / "tasks" / "fixtures" / "kernelbench" / "level1" / \
    "2_ReLU_large.py"
OFFICIAL_RELU = OFFICIAL.read_text()


def _task(tmp_path):
    path = tmp_path / "19_ReLU.py"
    path.write_text(OFFICIAL_RELU)
    return load_task(path)


def test_an_official_size_task_is_checked_on_the_cpu_at_halved_sizes(tmp_path):
    v = verify(_task(tmp_path), GOOD_RELU, device="cpu", profile=PROFILE)
    assert v.status == "passed", v.feedback
    assert v.shapes_checked[0] == "cpu" and v.shapes_skipped == ("default",)
    assert any("sizes reduced until a call fits" in w for w in v.warnings)


def test_a_plan_that_cannot_fit_is_too_large_and_not_stored(tmp_path, monkeypatch):
    monkeypatch.setattr(memplan, "available", lambda device: 1 << 20)  # a 1 MiB machine
    store = VerdictStore(tmp_path / "v.sqlite")
    v = verify(_task(tmp_path), GOOD_RELU, device="cpu", profile=PROFILE, store=store)
    assert v.status == "too_large", v.feedback
    assert "not the candidate's" in v.reasons[0] and "GiB" in v.reasons[0]
    assert store.get(v.cache_key) is None
    store.close()


def test_a_plan_that_does_not_fit_is_cut_before_it_is_given_up(monkeypatch):
    task = load_task(Path(reference.__file__).parents[2] / "tasks" / "builtin" / "level1" /
                     "sum_last_dim.py")  # a reduction: the timing sets' inputs dominate
    shape = task.shapes[-1].name
    s = memplan.sizes(task, shape, "cuda")  # a meta build: no GPU needed
    full = memplan.needed(s, PROFILES["quick"].timing_sets)
    least = memplan.needed(s, 1)
    assert least < full
    monkeypatch.setattr(memplan, "available", lambda device: (least + full) // 2)
    mem = memplan.plan(task, shape, PROFILES["quick"], "cuda")
    assert mem.cuts[-1] == "timing sets cut to 1" and mem.profile.timing_sets == 1
    assert mem.needed == least <= mem.budget and mem.block_sets == 1


def test_a_timing_block_holds_no_more_sets_than_the_plan_counted(monkeypatch):
    """The timer takes the plan's block_sets as its bound (baselines._set_count), so what
    both sides hold while timed is what the plan said: a bound from the free memory alone
    held 20 GiB on the trusted side against a plan of 8 on the H200, and blamed a candidate
    for 73 GiB the plan never gave it."""
    task = load_task(Path(reference.__file__).parents[2] / "tasks" / "builtin" / "level1" /
                     "softmax.py")
    shape = task.shapes[0].name  # its small shape: many sets fit in a block
    s = memplan.sizes(task, shape, "cuda")
    per_set = s.inputs + s.outputs
    monkeypatch.setattr(memplan, "available", lambda device: 100 << 30)
    mem = memplan.plan(task, shape, PROFILES["quick"], "cuda")
    assert mem.cuts == () and mem.block_sets > PROFILES["quick"].timing_sets
    assert mem.block_sets * per_set <= memplan.BLOCK_SHARE * mem.budget
    (_, trusted), (_, worker) = memplan.sides(s, mem.block_sets)
    assert min(trusted, worker) >= mem.block_sets * per_set  # every set and output counted
    assert mem.trusted >= trusted and mem.candidate >= worker
    tight = memplan.needed(s, PROFILES["quick"].timing_sets)  # fits only the profile's sets
    monkeypatch.setattr(memplan, "available", lambda device: tight)
    mem = memplan.plan(task, shape, PROFILES["quick"], "cuda")
    assert mem.block_sets == PROFILES["quick"].timing_sets
    assert mem.cuts == (f"timing blocks cut to {mem.block_sets} calls",)


def test_checked_calls_stream_so_the_plan_does_not_grow_with_their_number(tmp_path,
                                                                            monkeypatch):
    """One call's data is resident at a time: a profile with twice the seeds and variants
    needs no more memory, and a verification with them passes."""
    task = _task(tmp_path)
    quick, thorough = PROFILES["quick"], PROFILES["thorough"]
    assert thorough.seeds + len(thorough.variants) > quick.seeds + len(quick.variants)
    with monkeypatch.context() as m:
        m.setattr(memplan, "available", lambda device: 1 << 50)
        plans = [memplan.plan(task, "default", p, "cpu") for p in (quick, thorough)]
    assert plans[0].needed == plans[1].needed > 0
    v = verify("level1/relu", GOOD_RELU, device="cpu",
               profile=replace(thorough, timeout_s=300), use_cache=False)
    assert v.status == "passed", v.feedback
    assert len(v.cases) >= thorough.seeds + len(thorough.variants)


def test_out_of_memory_in_the_trusted_process_is_a_verdict(tmp_path, monkeypatch):
    def no_memory(*a, **k):
        raise torch.OutOfMemoryError("CUDA out of memory (simulated)")

    monkeypatch.setattr(pipeline, "prepare", no_memory)
    v = verify("level1/relu", GOOD_RELU, device="cpu", profile=PROFILE)
    assert v.status == "too_large" and "not the candidate's" in v.reasons[0]


def test_the_cli_exits_3_for_too_large(tmp_path):
    task = tmp_path / "huge.py"
    task.write_text(OFFICIAL_RELU.replace("batch_size = 4096", "batch_size = 4096 * 4096"))
    code = ("import sys\nfrom warpsmith.verify.checks import memplan\n"
            "memplan.available = lambda device: 1 << 20\n"
            "from warpsmith.cli.main import main\nsys.exit(main())\n")
    done = subprocess.run([sys.executable, "-c", code, "verify", str(task), str(GOOD_RELU),
                           "--device", "cpu", "--db", str(tmp_path / "v.sqlite")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "too_large" in done.stdout


WIDE_THEN_POOLED = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        y = torch.relu(x.repeat(1, 64, 1, 1))  # 64 times the input, then pooled away
        y.mul_(2.0)  # in place: no new memory
        return y.view(y.shape[0], -1).mean(dim=1)

def get_inputs():
    return [torch.rand(8, 4, 32, 32)]

def get_init_inputs():
    return []
'''


def test_the_plan_counts_the_forwards_intermediates_not_only_its_outputs(tmp_path):
    """A convolution before a global pooling: the outputs are tiny, the intermediates not
    (KernelBench level 2's plans were 2-4x under the peaks the H200 measured)."""
    path = tmp_path / "wide.py"
    path.write_text(WIDE_THEN_POOLED)
    task = load_task(path)
    s = memplan.sizes(task, task.shapes[-1].name, "cuda")
    wide = 8 * 4 * 64 * 32 * 32 * 4
    assert s.outputs == 8 * 4
    assert 2 * wide <= s.workspace < 2 * wide + (1 << 20)  # the repeat and the relu, once each
    (trusted, _), (worker, _) = memplan.sides(s, 0)
    assert worker >= s.params + (1 + s.input_copy) * s.inputs + 2 * wide
    assert trusted >= s.inputs * (1 + s.high) + 2 * wide * s.high


def test_the_baselines_process_warming_up_beside_the_checks_is_in_the_plan():
    """KernelBench level 1 tasks 46 and 63 on an H100 (2026-12-07): the baselines' process
    held about 20 GiB (its model, its warm-up inputs, a forward) while the candidate was
    checked; left out of the plan, the trusted side ran out and the honest candidate was
    blamed for it."""
    from warpsmith.verify.child.reference_worker import WARM_SEEDS

    assert len(WARM_SEEDS) == memplan.WARM_SETS
    s = memplan.sizes(_official(), "default", "cuda")
    (trusted, _), (worker, _) = memplan.sides(s, 1)
    assert memplan.needed(s, 1) >= trusted + worker + memplan.WARM_SETS * s.inputs
    assert memplan.needed(s, 0) == trusted + worker  # nothing timed: no baselines' process


def _official():
    return load_task(OFFICIAL)


def test_the_baselines_process_ends_before_the_candidate_is_blamed(monkeypatch):
    """An out-of-memory of the trusted side's while a call is checked: the baselines' process
    is ended and its memory let back before what the candidate holds is measured."""
    from warpsmith.verify.checks import collect

    order = []
    reader = collect.CaseReader.__new__(collect.CaseReader)
    reader.task, reader.prepared, reader.others = None, None, 0
    reader.before_blame = lambda: order.append("ended")
    monkeypatch.setattr(collect, "settle_freed", lambda: order.append("settled"))
    monkeypatch.setattr(collect, "blame_if_held", lambda *a, **k: order.append("measured"))
    reader._blame_if_held()
    assert order == ["ended", "settled", "measured"]


def test_where_the_baselines_beside_the_checks_do_not_fit_they_warm_up_after(monkeypatch):
    """Counted beside the checks, KernelBench's norms needed 105-147 GiB (past an H200's
    budget) and its ReLU 90: the plan's next rung warms the baselines up after the checks
    (slower, the same timing) before anything of the timing is cut."""
    s = memplan.sizes(_official(), "default", "cuda")
    prof = replace(PROFILES["quick"], timing_sets=1)  # ReLU's 6 GiB sets: one a block
    beside, after = memplan.needed(s, 1), memplan.needed(s, 1, deferred=True)
    assert after < beside
    monkeypatch.setattr(memplan, "available", lambda device: after)
    mem = memplan.plan(_official(), "default", prof, "cuda")
    assert mem.deferred and mem.cuts == (memplan.DEFERRED,) and mem.needed == after
    monkeypatch.setattr(memplan, "available", lambda device: beside)
    mem = memplan.plan(_official(), "default", prof, "cuda")
    assert not mem.deferred and mem.cuts == ()
    monkeypatch.setattr(memplan, "available", lambda device: 1 << 50)  # never on the CPU
    assert not memplan.plan(_official(), "default", prof, "cpu").deferred


def test_a_librarys_hidden_workspace_is_guessed_only_where_the_forward_calls_one(tmp_path):
    """An elementwise op's temporaries are all on meta tensors; a convolution's (cuDNN) are
    not, and keep the guess. On a GPU the worker keeps no copy of its inputs: the trusted
    side reads its input buffers back."""
    relu = memplan.sizes(_official(), "default", "cuda")
    assert not relu.library and not relu.input_copy
    assert memplan.sizes(_official(), "default", "cpu").input_copy
    conv = load_task(Path(reference.__file__).parents[2] / "tasks" / "builtin" / "level1" /
                     "conv2d.py")
    assert memplan.sizes(conv, conv.shapes[-1].name, "cuda").library
    (trusted, _), _ = memplan.sides(relu, 0)
    assert trusted == relu.inputs * (1 + relu.high) + relu.outputs + \
        max(relu.workspace, relu.outputs) * relu.high
    for op, called in (("aten.convolution.default", True), ("aten._cudnn_rnn.default", True),
                       ("aten.addmm.default", True), ("aten.sort.stable", True),
                       ("aten.relu.default", False), ("aten.max_pool2d_with_indices.default",
                                                      False), ("aten.sum.dim_IntList", False)):
        assert memplan._library(op) is called, op
