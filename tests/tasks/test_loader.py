from pathlib import Path

import pytest
import torch

from warpsmith.errors import TaskError, UsageError
from warpsmith.tasks import build, load_suite, load_task, resolve_task
from warpsmith.tasks.admission import admission_problems

FIXTURES = Path(__file__).parent / "fixtures"


def test_kernelbench_folder_loads_as_a_suite():
    tasks, errors = load_suite(FIXTURES / "kb_level1")
    assert not errors
    assert [t.title for t in tasks] == [
        "1_Square_matrix_multiplication_", "23_Softmax", "54_conv_standard_3D"]
    assert all(t.shapes[0].name == "default" and t.dtype == "float32" for t in tasks)


def test_kernelbench_task_builds_with_its_own_constants():
    task = load_task(FIXTURES / "kb_level1" / "54_conv_standard_3D.py")
    inst = build(task, "default")
    assert inst.inputs[0].shape == (2, 3, 10, 12)
    assert inst.model(*inst.inputs).shape == (2, 8, 8, 10)


def test_builtin_suite_has_three_levels_the_models_suite_and_sixty_tasks():
    tasks, errors = load_suite("builtin")
    assert not errors
    levels = {t.level for t in tasks}
    assert levels == {"level1", "level2", "level3", "models"}
    count = {lvl: sum(t.level == lvl for t in tasks) for lvl in levels}
    assert len(tasks) >= 60 and count["level1"] >= 30
    assert count["level2"] >= 20 and count["level3"] >= 10


def test_shapes_set_module_constants_and_dtype_is_applied():
    task = resolve_task("level1/linear_fp16")
    small = build(task, "small", device="meta")
    assert small.inputs[0].shape == (33, 72) and small.inputs[0].dtype == torch.float16
    assert small.model.linear.weight.dtype == torch.float16
    gpu = build(task, "gpu", device="meta")  # meta: the GPU shape costs no memory
    assert gpu.inputs[0].shape == (8192, 8192)


def test_a_model_runs_as_constructed_unless_the_task_declares_a_mode():
    kb = load_task(FIXTURES / "kb_semantics" / "33_BatchNorm.py")
    inst = build(kb, "default")
    assert inst.mode is None and inst.model.training  # KernelBench calls neither train() nor eval()
    declared = resolve_task("level2/conv2d_batchnorm_relu")  # MODE = "eval": running statistics
    inst = build(declared, "small", device="meta")
    assert inst.mode == "eval" and not any(m.training for m in inst.model.modules())


def test_an_unknown_mode_is_the_task_files_error(tmp_path):
    path = tmp_path / "bn.py"
    path.write_text((FIXTURES / "kb_semantics" / "33_BatchNorm.py").read_text()
                    + '\nMODE = "inference"\n')
    with pytest.raises(TaskError, match="MODE 'inference' is not one of 'train', 'eval'"):
        load_task(path)


def test_seed_changes_inputs_and_same_seed_repeats():
    task = resolve_task("level1/relu")
    a, b, c = (build(task, "small", seed=s).inputs[0] for s in (0, 0, 1))
    assert torch.equal(a, b) and not torch.equal(a, c)


@pytest.mark.parametrize("name, message", [
    ("syntax_error", "syntax error on line 3"),
    ("no_model", "defines no Model"),
    ("import_error", "raised ModuleNotFoundError"),
    ("bad_shape", "sets M, which the file does not define"),
])
def test_bad_task_files_name_the_file_and_the_problem(name, message):
    path = FIXTURES / "bad" / f"{name}.py"
    with pytest.raises(TaskError) as err:
        load_task(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_a_suite_with_bad_files_reports_them_and_keeps_the_rest():
    tasks, errors = load_suite(FIXTURES / "bad")
    assert tasks == [] and len(errors) == 4


def test_unknown_task_and_suite_are_usage_errors():
    with pytest.raises(UsageError, match="tasks list builtin"):
        resolve_task("level1/no_such_op")
    with pytest.raises(UsageError, match="no suite"):
        load_suite("/no/such/folder")


@pytest.mark.parametrize("name, expected", [
    ("softmax_of_mean", ["nearly) constant", "input 0 does not change"]),
    ("unused_parameter", ["parameter unused does not change", "input 0 is not mixed-sign"]),
    ("random_forward", ["draws random numbers", "input 1 does not change", "within ±0.01"]),
])
def test_admission_catches_degenerate_tasks(name, expected):
    task = load_task(FIXTURES / "degenerate" / f"{name}.py")
    problems = " | ".join(admission_problems(task, "small"))
    for fragment in expected:
        assert fragment in problems, problems
