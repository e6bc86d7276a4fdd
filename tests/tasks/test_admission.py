"""Every built-in task passes admission on its small shape (docs/tasks.md lists the checks)."""

import pytest

from warpsmith.tasks import load_suite
from warpsmith.tasks.admission import admission_problems

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
