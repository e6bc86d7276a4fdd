import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent.parent
BUILTIN = ROOT / "src" / "warpsmith" / "tasks" / "builtin"
KERNELS = ROOT / "tests" / "kernels"


def make_suite(root: Path, *names: str) -> Path:
    """A folder suite holding copies of built-in level-1 tasks, so its tasks are level1/NAME."""
    (root / "level1").mkdir(parents=True)
    for name in names:
        shutil.copy(BUILTIN / "level1" / f"{name}.py", root / "level1" / f"{name}.py")
    return root


@pytest.fixture(scope="session")
def small(tmp_path_factory):
    """Four tasks: two good kernels under two naming forms, one incorrect, one with no file."""
    base = tmp_path_factory.mktemp("small")
    suite = make_suite(base / "suite", "relu", "sigmoid", "silu", "softmax")
    kernels = base / "kernels"
    (kernels / "level1").mkdir(parents=True)
    shutil.copy(KERNELS / "good" / "relu_triton.py", kernels / "relu.py")
    shutil.copy(KERNELS / "good" / "sigmoid_triton.py", kernels / "level1_sigmoid.py")
    shutil.copy(KERNELS / "bad" / "incorrect_wrong_math.py", kernels / "level1" / "softmax.py")
    return suite, kernels
