"""Every built-in task passes admission on its small shape (docs/tasks.md lists the checks);
the CPU-sized copy of a task too large for the CPU keeps its structure."""

from pathlib import Path

import pytest

from warpsmith.tasks import count_cost, load_suite, resolve_task
from warpsmith.tasks.admission import admission_problems, cpu_sized, data_sizes
from warpsmith.tasks.loader import build

TASKS, ERRORS = load_suite("builtin")
# warpsmith's own levels declare small and gpu shapes; builtin/models is plain KernelBench
# format (tests/tasks/test_models_suite.py checks it at its one shape)
LEVELS = [t for t in TASKS if t.level != "models"]


def test_builtin_suite_loads_without_errors():
    assert not ERRORS, "\n".join(str(e) for e in ERRORS)


@pytest.mark.parametrize("task", LEVELS, ids=[t.name for t in LEVELS])
def test_task_is_admissible(task):
    assert {"small", "gpu"} <= {s.name for s in task.shapes}
    problems = admission_problems(task, "small")
    assert not problems, f"{task.name}: " + "; ".join(problems)


# ---- the CPU-sized copy keeps the task's structure (issue 27) ------------------------------

STRUCTURE = Path(__file__).parent / "fixtures" / "structure"
CONV_FIELDS = ("kernel_size", "stride", "padding", "dilation", "groups", "output_padding")


def test_data_sizes_leave_out_structural_parameters_unless_equal_to_a_data_size():
    sizes = {"batch_size": 16, "in_channels": 128, "groups": 128, "kernel_size": 8,
             "stride": (2, 3), "output_padding": 1, "num_groups": 8, "length": 65536}
    assert data_sizes(sizes) == {"batch_size": 16, "in_channels": 128, "groups": 128,
                                 "length": 65536}


@pytest.mark.parametrize("name", ["conv_transposed3d_strided_dilated", "conv2d_grouped_dilated"])
def test_cpu_copy_of_a_task_too_large_keeps_its_structure_and_fits(name):
    task = resolve_task(STRUCTURE / f"{name}.py")
    sized, shape = cpu_sized(task, 8 << 20, 500_000_000)
    assert shape == "cpu" and count_cost(sized, shape).bytes <= 8 << 20
    official, small = build(task, task.shapes[0].name).model.conv, build(sized, shape).model.conv
    assert [getattr(small, f) for f in CONV_FIELDS] == [getattr(official, f) for f in CONV_FIELDS]
    assert small.in_channels < official.in_channels
