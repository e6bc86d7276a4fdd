"""Generator specs, how a folder's files are matched to tasks, and budget shares."""

from pathlib import Path

import pytest

from warpsmith.bench import Item, make_generator
from warpsmith.bench.generators import DirGenerator, LLMGenerator, canonical, find_candidate
from warpsmith.bench.runner import exhausted, share
from warpsmith.errors import UsageError
from warpsmith.search import Budget
from warpsmith.types import Task


def task(name, level=None):
    return Task(name=name, path=Path(f"/suite/{name}.py"), description="", shapes=(),
                level=level)


def touch(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("class ModelNew: pass\n")


@pytest.mark.parametrize("name", ["level1/relu.py", "relu.py", "level1_relu.py",
                                  "level1_relu_best.py"])
def test_each_documented_name_is_found(tmp_path, name):
    touch(tmp_path, name)
    assert find_candidate(tmp_path, task("level1/relu", "level1"), 0) == tmp_path / name


def test_first_documented_name_wins_and_samples_need_their_number(tmp_path):
    touch(tmp_path, "relu.py", "level1/relu.py", "relu_sample_1.py")
    t = task("level1/relu", "level1")
    assert find_candidate(tmp_path, t, 0) == tmp_path / "level1/relu.py"
    assert find_candidate(tmp_path, t, 1) == tmp_path / "relu_sample_1.py"
    assert find_candidate(tmp_path, t, 2) is None


def test_kernelbench_run_folder(tmp_path):
    touch(tmp_path, "level_1_problem_19_sample_0_kernel.py",
          "level_1_problem_19_sample_3_kernel.py", "level_2_problem_19_sample_0_kernel.py")
    t = task("level1/19_ReLU", "level1")
    assert find_candidate(tmp_path, t, 3).name == "level_1_problem_19_sample_3_kernel.py"
    assert find_candidate(tmp_path, task("level2/19_X", "level2"), 0).name.startswith("level_2")
    assert find_candidate(tmp_path, task("19_ReLU"), 0).name.startswith("level_1")  # no level
    assert find_candidate(tmp_path, task("level1/20_Other", "level1"), 0) is None


def test_specs_make_generators_and_bad_specs_name_the_valid_forms(tmp_path):
    assert isinstance(make_generator(f"dir:{tmp_path}"), DirGenerator)
    llm = make_generator("llm:refine:openai-compatible:http://127.0.0.1:1/v1#m")
    assert isinstance(llm, LLMGenerator) and llm.model == "openai-compatible:http://127.0.0.1:1/v1#m"
    assert isinstance(make_generator("library"), LLMGenerator)  # optimize without a model
    for bad, words in (("library:x", "takes no argument"), ("nope:x", "llm:STRATEGY:MODEL_SPEC"),
                       (f"dir:{tmp_path}/missing", "no such folder"),
                       ("llm:refine", "llm:STRATEGY:MODEL_SPEC"),
                       ("llm:greedy:openai:gpt-4.1", "one-shot"),
                       ("llm:refine:nope:m", "unknown provider")):
        with pytest.raises(UsageError, match=words):
            make_generator(bad)


def test_budget_share_and_bench_totals():
    assert share(Budget(calls=10, usd=2.0, wall_s=60), 4) == Budget(calls=2, usd=0.5, wall_s=15)
    assert share(Budget(calls=3), 8).calls == 1 and share(Budget(), 3) == Budget()
    items = [Item("a", 0, "passed", cost_usd=0.4, spend={"calls": 2}, seconds=10),
             Item("b", 0, "incorrect", cost_usd=0.7, spend={"calls": 1}, seconds=10)]
    assert exhausted(Budget(usd=1.0), items) == "usd"
    assert exhausted(Budget(calls=4, wall_s=30), items) is None
    assert exhausted(Budget(wall_s=20), items) == "wall"
    assert exhausted(Budget(wall_s=20), items, slots=2) is None  # two items ran at once


def test_a_folder_spec_is_stored_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert canonical("dir:kernels") == f"dir:{tmp_path / 'kernels'}"
    assert canonical("llm:refine:openai:gpt-4.1") == "llm:refine:openai:gpt-4.1"
