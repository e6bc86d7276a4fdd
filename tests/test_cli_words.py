"""Words a stranger meets: a bare built-in task name where `bench --tasks` takes one, a binary
task file, and a resumed bench's report naming the budget it last ran under."""

from warpsmith.bench import resume
from warpsmith.bench.store import BenchStore
from warpsmith.report import load_report, render_report
from warpsmith.search import parse_budget

from .test_cli_errors import one_line_error, run


def test_tasks_show_takes_the_bare_name_bench_takes(tmp_path):
    res = run("tasks", "show", "relu", "--no-source", "--no-check", tmp=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("level1/relu")


def test_a_binary_task_file_is_not_python_source(tmp_path):
    (tmp_path / "task.py").write_bytes(bytes(range(128, 256)) * 4)
    one_line_error(run("tasks", "show", "task.py", tmp=tmp_path), "task.py",
                   "not Python source", "0x80")


def test_a_resumed_benchs_report_names_the_budget_it_ran_under(tmp_path):
    db = tmp_path / "s.sqlite"
    store = BenchStore(db)  # a bench with nothing left to do: the resume only records
    bench_id = store.new_bench("builtin/level1", "reference", {
        "samples": 1, "device": "cpu", "profile": "quick", "tasks": [], "not_loaded": [],
        "budget": {"calls": None, "tokens": None, "usd": None, "wall_s": None, "gpu_s": None},
        "options": {}, "executor": "inline"})
    store.close()
    resume(bench_id, db, budget=parse_budget("wall=15s"))
    header = render_report(load_report(bench_id, db)).split("\n")[2]
    assert "budget wall_s=15 · status finished" in header, header
