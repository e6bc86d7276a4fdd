"""The command line as a user runs it: a real subprocess, real exit codes, real JSON."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "src" / "warpsmith" / "examples" / "relu_triton.py"


def run(*args, env_db=None):
    cmd = [sys.executable, "-c", "from warpsmith.cli.main import main; main()", *args]
    env = {"PATH": "/usr/bin:/bin", "WARPSMITH_DB": str(env_db)} if env_db else None
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def test_tasks_list_builtin_json():
    res = run("tasks", "list", "builtin", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert len(data["tasks"]) >= 60 and data["errors"] == []


def test_tasks_list_folder_with_bad_files_names_them_and_exits_1():
    res = run("tasks", "list", str(ROOT / "tests" / "tasks" / "fixtures" / "bad"))
    assert res.returncode == 1
    # rich wraps at 80 columns where the path's length puts it: compare with spaces folded
    assert "syntax_error.py: syntax error on line 3" in " ".join(res.stderr.split())
    assert "Traceback" not in res.stderr


def test_tasks_show_json_has_counts_and_floor():
    res = run("tasks", "show", "level1/linear_fp16", "--json", "--gpu", "H100")
    data = json.loads(res.stdout)
    gpu = next(s for s in data["shapes"] if s["name"] == "gpu")
    assert gpu["flops"] == 2 * 8192**3 and gpu["floor_bound"] == "matmul"
    assert data["gpu"] == "H100" and "class Model" in data["source"]


def test_usage_errors_exit_2_without_traceback():
    for args in (["tasks", "show", "level9/nothing"], ["verify", "level1/relu", "missing.py"],
                 ["tasks", "show", str(ROOT / "tests/tasks/fixtures/bad/no_model.py")],
                 ["tasks", "list", "/no/such/dir"]):
        res = run(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert "Traceback" not in res.stderr and "error" in res.stderr.lower()


def test_verify_json_is_one_object_and_a_repeat_is_served_from_the_store(tmp_path):
    db = tmp_path / "store.sqlite"
    first = run("verify", "level1/relu", str(EXAMPLE), "--device", "cpu", "--json", env_db=db)
    assert first.returncode == 0, first.stderr
    verdict = json.loads(first.stdout)  # exactly one object: json.loads rejects trailing data
    assert verdict["status"] == "passed" and verdict["correct"] and not verdict["cached"]
    assert verdict["timing_measured"] is False and verdict["kernels_launched"] == ["relu_kernel"]
    again = json.loads(run("verify", "level1/relu", str(EXAMPLE), "--device", "cpu", "--json",
                           env_db=db).stdout)
    assert again["cached"] and again["cache_key"] == verdict["cache_key"]
    fresh = json.loads(run("verify", "level1/relu", str(EXAMPLE), "--device", "cpu", "--json",
                           "--no-cache", env_db=db).stdout)
    assert not fresh["cached"]


def test_verify_failure_exits_1(tmp_path):
    bad = ROOT / "tests" / "kernels" / "bad" / "incorrect_partial_write.py"
    res = run("verify", "level1/relu", str(bad), "--device", "cpu", env_db=tmp_path / "s.db")
    assert res.returncode == 1 and "incorrect" in res.stdout


def test_runs_show_reads_an_evolve_childs_idea_and_gains():
    from warpsmith.cli.runs import _reason
    from warpsmith.store.runs import Attempt

    child = Attempt("r", 0, 0, 0, "passed", [], idea="fuse the two passes",
                    predicted_gain=1.3, measured_gain=1.12)
    assert _reason(child) == "fuse the two passes (predicted 1.30x, measured 1.12x)"
    assert _reason(Attempt("r", 0, 0, 0, "llm_error", [], error="timeout")) == "timeout"
