"""Every built-in level-1 task: the library's candidate passes the verifier on the CPU
interpreter, or the task is listed here as not covered with the reason the library gives.

The verifications run in two spawned processes (each verify starts its own worker), so the
test process itself only traces and renders.
"""

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from warpsmith.config import PROFILES
from warpsmith.library import Generated, NotCovered, coverage, coverage_table, generate
from warpsmith.tasks.suite import load_suite

# no decoy calls: they catch a kernel honest only on its first calls, which the library's
# are not (config.VerifyProfile.decoys); every other check of the quick profile runs
QUICK = replace(PROFILES["quick"], timeout_s=120, decoys=(0, 0))
TASKS, _ = load_suite("builtin/level1")
NAMES = [t.name for t in TASKS]

# The families the library must cover wherever the suite has such a task.
REQUIRED = {
    "level1/relu": "elementwise", "level1/sigmoid": "elementwise",
    "level1/silu": "elementwise", "level1/gelu_tanh_fp16": "elementwise",
    "level1/hardtanh": "elementwise", "level1/leaky_relu": "elementwise",
    "level1/softplus": "elementwise", "level1/softmax": "softmax",
    "level1/softmax_bf16": "softmax", "level1/log_softmax": "softmax",
    "level1/layer_norm": "layer_norm", "level1/rms_norm": "rms_norm",
    "level1/sum_last_dim": "reduce", "level1/argmax": "reduce", "level1/cumsum": "cumsum",
    "level1/avg_pool2d": "pool2d", "level1/max_pool2d": "pool2d",
    "level1/sdpa_causal": "attention",
    "level1/conv1d": "conv", "level1/conv2d": "conv", "level1/depthwise_conv2d": "conv",
    # bf16 products: verified since the worker widens the interpreter's bf16 tl.dot
    "level1/matmul_bf16": "matmul", "level1/sdpa": "attention",
}
# Not covered yet, each with a word its reason must contain.
NOT_COVERED: dict[str, str] = {}  # none since bf16 products verify (2026-12-04)
# Small knobs force the paths the small shapes would not reach: rows wider than ROW_MAX,
# reductions longer than one BLOCK, column tiles shorter than the reduced dim.
VARIANTS = {
    "level1/softmax": {"ROW_MAX": 64, "BLOCK": 64},
    "level1/layer_norm": {"ROW_MAX": 64, "BLOCK": 64},
    "level1/rms_norm": {"ROW_MAX": 64, "BLOCK": 64},
    "level1/argmax": {"BLOCK": 64},
    "level1/max_dim": {"BLOCK_R": 32, "BLOCK_I": 16},
    "level1/cumsum": {"BLOCK": 64},
    "level1/cross_entropy": {"BLOCK": 64, "SUM_BLOCK": 16},
    "level1/kl_div": {"BLOCK": 64, "SUM_BLOCK": 16},
    "level1/matmul_fp16": {"BLOCK_M": 32, "BLOCK_N": 16, "BLOCK_K": 32, "GROUP_M": 2},
    "level1/max_pool2d": {"BLOCK_H": 4, "BLOCK_W": 8},
    "level1/sdpa_causal": {"BLOCK_M": 16, "BLOCK_N": 16},
}

# Task files of our own for paths no built-in task reaches: every pointwise form, two inputs,
# keepdim, an arg-reduction over column tiles, pooling's uncounted padding, divisor and dilation,
# fp32 attention with a head size no power of two.
OWN = Path(__file__).parent / "tasks"
OWN_TASKS = {"pointwise_unary": "elementwise", "pointwise_binary": "elementwise",
             "amin_keepdim": "reduce", "argmin_middle": "reduce",
             "avg_pool_uncounted": "pool2d", "avg_pool_divisor": "pool2d",
             "max_pool_dilated": "pool2d", "attention_fp32": "attention",
             "max_pool1d_dilated": "pool1d", "avg_pool1d_padded": "pool1d",
             "max_pool3d_dilated": "pool3d", "avg_pool3d": "pool3d",
             "avg_pool3d_uncounted": "pool3d", "triu_matmul": "matmul",
             "tril_matmul_offset": "matmul", "matmul_3d": "matmul", "einsum_4d": "matmul",
             "batch_norm_train": "batch_norm"}
# small tiles: several pooling tiles per row and plane, matmul tiles wholly outside the
# triangle, batch norm programs that each sum several runs of a channel
OWN_VARIANTS = {"max_pool1d_dilated": {"BLOCK_L": 16}, "max_pool3d_dilated": {"BLOCK_H": 8,
                                                                             "BLOCK_W": 4},
                "avg_pool3d_uncounted": {"BLOCK_H": 2, "BLOCK_W": 8},
                "triu_matmul": {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 2},
                "tril_matmul_offset": {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 16},
                "batch_norm_train": {"STAT_BLOCK": 16, "STAT_PROGRAMS": 10, "APPLY_BLOCK": 16}}


def _verify(job: tuple[str, str, str]) -> tuple[str, str]:
    from warpsmith.verify.pipeline import verify

    task, path, source = job
    with open(path, "w") as f:
        f.write(source)
    verdict = verify(task, path, device="cpu", profile=QUICK)
    return verdict.status, verdict.feedback


@pytest.fixture(scope="module")
def generated():
    return {name: generate(task) for name, task in zip(NAMES, TASKS, strict=True)}


@pytest.fixture(scope="module")
def verdicts(generated, tmp_path_factory):
    folder = tmp_path_factory.mktemp("library")
    jobs = {name: (name, str(folder / f"{name.replace('/', '_')}.py"), g.source)
            for name, g in generated.items() if isinstance(g, Generated)}
    for name, tune in VARIANTS.items():
        source = generate(name, tune=tune).source
        jobs[f"{name}+loops"] = (name, str(folder / f"{name.replace('/', '_')}_loops.py"),
                                 source)
    for stem in OWN_TASKS:
        path = str(OWN / f"{stem}.py")
        jobs[f"own/{stem}"] = (path, str(folder / f"own_{stem}.py"), generate(path).source)
    for stem, tune in OWN_VARIANTS.items():
        path = str(OWN / f"{stem}.py")
        jobs[f"own/{stem}+tiles"] = (path, str(folder / f"own_{stem}_tiles.py"),
                                     generate(path, tune=tune).source)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        return dict(zip(jobs, pool.map(_verify, jobs.values()), strict=True))


def test_coverage_is_at_least_the_required_families():
    rows = {r.task: r for r in coverage(TASKS)}
    table = coverage_table(list(rows.values()))
    for name, family in REQUIRED.items():
        assert rows[name].family == family, table
    for name, word in NOT_COVERED.items():
        assert rows[name].family is None and word in rows[name].reason, table
    unexpected = [n for n, r in rows.items() if r.family is None and n not in NOT_COVERED]
    assert not unexpected, table


@pytest.mark.parametrize("name", NAMES)
def test_task_passes_or_is_listed_as_not_covered(name, generated, verdicts):
    result = generated[name]
    if isinstance(result, NotCovered):
        assert name in NOT_COVERED, result.reason
        return
    status, feedback = verdicts[name]
    assert status == "passed", f"{result.family}: {feedback}"


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_loop_paths_pass_too(name, verdicts):
    status, feedback = verdicts[f"{name}+loops"]
    assert status == "passed", feedback


@pytest.mark.parametrize("stem", sorted(OWN_TASKS))
def test_own_tasks_are_covered_and_pass(stem, verdicts):
    assert generate(OWN / f"{stem}.py").family == OWN_TASKS[stem]
    status, feedback = verdicts[f"own/{stem}"]
    assert status == "passed", feedback


@pytest.mark.parametrize("stem", sorted(OWN_VARIANTS))
def test_own_tasks_pass_with_small_tiles(stem, verdicts):
    status, feedback = verdicts[f"own/{stem}+tiles"]
    assert status == "passed", feedback
