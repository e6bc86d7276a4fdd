"""KernelBench suites as its users expect them: levels from folder names, problem order,
admission warnings, missing packages named, uncountable tasks reported (issue 17).

The twins under fixtures/kernelbench are small KernelBench-format files with the real
suite's traits; the tests marked `kernelbench` read a checkout at ./KernelBench where one is."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from warpsmith.cli.main import cli
from warpsmith.tasks import count_cost, load_suite, resolve_task
from warpsmith.tasks.admission import admission_warnings, checkable
from warpsmith.tasks.counting import ran_on_meta
from warpsmith.tasks.suite import level_number, natural_key

TWINS = Path(__file__).parent / "fixtures" / "kernelbench"
CHECKOUT = Path(__file__).parents[2] / "KernelBench"
kernelbench = pytest.mark.skipif(not (CHECKOUT / "level1").is_dir(),
                                 reason="no KernelBench checkout at ./KernelBench")


def test_a_level_folder_gives_its_level_and_problem_order():
    tasks, errors = load_suite(TWINS / "level1")
    assert not errors
    assert [t.title for t in tasks] == ["1_ReLU", "2_ReLU_large", "10_ReLU", "100_ReLU"]
    assert {t.level for t in tasks} == {"level1"} and level_number("level1") == 1


def test_a_checkout_root_gives_levels_from_sub_folders_in_order():
    tasks, errors = load_suite(TWINS)
    assert [t.title for t in tasks][:4] == ["level1/1_ReLU", "level1/2_ReLU_large",
                                           "level1/10_ReLU", "level1/100_ReLU"]
    assert [t.level for t in tasks][-2:] == ["level2", "level3"]
    assert len(errors) == 1  # the einops file


def test_natural_key_orders_numbers_as_numbers():
    names = ["100_a", "10_a", "2_a", "1_b", "level2/3_x", "level10/1_x"]
    assert sorted(names, key=lambda n: natural_key(Path(n))) == [
        "1_b", "2_a", "10_a", "100_a", "level2/3_x", "level10/1_x"]


def test_a_missing_module_is_named_with_the_install_hint():
    _, errors = load_suite(TWINS / "level3")
    assert len(errors) == 1
    assert "No module named 'einops'" in str(errors[0])
    assert "pip install einops" in str(errors[0])


def test_a_single_file_gets_its_level_from_its_folder():
    assert resolve_task(TWINS / "level2" / "80_Gemm_Max_Subtract_GELU.py").level == "level2"


def test_constant_output_is_a_warning():
    task = resolve_task(TWINS / "level2" / "80_Gemm_Max_Subtract_GELU.py")
    warnings = " | ".join(admission_warnings(task))
    assert "within ±0.01" in warnings and "input 0 does not change the output" in warnings
    assert "training mode" not in warnings and "mixed-sign" not in warnings


def test_relu_of_nonnegative_inputs_equals_its_input():
    assert admission_warnings(resolve_task(TWINS / "level1" / "1_ReLU.py")) == [
        "output 0 equals input 0"]


def test_a_task_too_large_for_the_cpu_is_checked_at_halved_sizes():
    task = resolve_task(TWINS / "level1" / "2_ReLU_large.py")
    checked, shape = checkable(task)
    values = checked.shape(shape).values
    assert values["batch_size"] < 4096 and values["dim"] < 393216
    assert count_cost(checked, shape).bytes <= 64 << 20
    assert admission_warnings(task) == ["output 0 equals input 0"]


def test_a_task_that_cannot_run_on_meta_is_uncountable_not_an_error():
    task = resolve_task(TWINS / "level3" / "29_SwinMLP_item.py")
    cost = count_cost(task, "default")
    assert not cost.countable and not ran_on_meta(cost)
    assert "Tensor.item()" in cost.uncounted_ops[0] and cost.bytes == 4 * 32 * 4
    assert admission_warnings(task)[0].startswith("admission not checked")


def test_tasks_show_reports_uncountable_and_warnings_with_exit_0():
    runner = CliRunner()
    path = str(TWINS / "level3" / "29_SwinMLP_item.py")
    result = runner.invoke(cli, ["tasks", "show", path, "--json"])
    assert result.exit_code == 0, result.output
    shape = json.loads(result.output)["shapes"][0]
    assert shape["floor_us"] is None and "meta device" in shape["uncounted_ops"][0]
    result = runner.invoke(cli, ["tasks", "show", str(TWINS / "level2" /
                                                      "80_Gemm_Max_Subtract_GELU.py"), "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["warnings"]


def test_tasks_list_check_lists_warnings_per_task():
    result = CliRunner().invoke(cli, ["tasks", "list", str(TWINS / "level2"), "--check",
                                      "--json"])
    assert result.exit_code == 0, result.output
    [task] = json.loads(result.output)["tasks"]
    assert task["level"] == "level2" and any("±0.01" in w for w in task["warnings"])


@kernelbench
def test_kernelbench_level1_loads_in_problem_order():
    tasks, errors = load_suite(CHECKOUT / "level1")
    assert not errors and len(tasks) == 100
    assert [int(t.name.split("_")[0]) for t in tasks] == list(range(1, 101))
    assert {t.level for t in tasks} == {"level1"}


@kernelbench
def test_kernelbench_level3_names_einops_and_counts_what_it_can():
    tasks, errors = load_suite(CHECKOUT / "level3")
    assert len(tasks) == 48 and len(errors) == 2
    assert all("pip install einops" in str(e) for e in errors)
    swin = next(t for t in tasks if t.title == "29_SwinMLP")
    assert not count_cost(swin, "default").countable


@kernelbench
def test_kernelbench_level2_80_warns_of_its_constant_output():
    task = resolve_task(CHECKOUT / "level2" / "80_Gemm_Max_Subtract_GELU.py")
    assert any("within ±0.01" in w for w in admission_warnings(task))
