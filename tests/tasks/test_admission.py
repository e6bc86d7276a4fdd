"""Every built-in task passes admission on its small shape (docs/tasks.md lists the checks)."""

import pytest

from warpsmith.tasks import load_suite
from warpsmith.tasks.admission import admission_problems

TASKS, ERRORS = load_suite("builtin")


def test_builtin_suite_loads_without_errors():
    assert not ERRORS, "\n".join(str(e) for e in ERRORS)


@pytest.mark.parametrize("task", TASKS, ids=[t.name for t in TASKS])
def test_task_is_admissible(task):
    assert {"small", "gpu"} <= {s.name for s in task.shapes}
    problems = admission_problems(task, "small")
    assert not problems, f"{task.name}: " + "; ".join(problems)
