"""stdout carries the result alone: a task file that prints when imported, from Python and
from C (libc's printf and a raw write to file descriptor 1), cannot break `--json`; what it
printed still reaches stderr. Progress and notes on a stderr that is no terminal are not
hard-wrapped at 80 columns."""

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).parent.parent
RELU = ROOT / "src" / "warpsmith" / "examples" / "relu_triton.py"
CHATTY = '''"""ReLU, from a task file that talks while it is imported."""

import ctypes
import os

import torch
import torch.nn as nn

print("python print at import")
os.write(1, b"raw write to fd 1 at import\\n")
ctypes.CDLL(None).printf(b"libc printf at import\\n")  # buffered in libc, flushed at exit

ROWS = 37
COLS = 129


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
'''
SAID = ("python print at import", "raw write to fd 1 at import", "libc printf at import")


def run(*args, tmp: Path, **env):
    # the width the test asks for alone: a COLUMNS the runner's environment holds (pytest-xdist
    # workers, a terminal) would make every console "sized"
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("WARPSMITH_") and k not in ("COLUMNS", "LINES")}
    base |= {"WARPSMITH_HOME": str(tmp / "home"), "WARPSMITH_DB": str(tmp / "s.sqlite")} | env
    return subprocess.run([sys.executable, "-m", "warpsmith", *args], capture_output=True,
                          text=True, env=base, cwd=tmp, timeout=600)


def chatty_suite(tmp: Path) -> Path:
    suite = tmp / "suite"
    suite.mkdir()
    (suite / "relu_chatty.py").write_text(CHATTY)
    return suite


def test_tasks_list_json_is_one_object_while_a_task_prints(tmp_path):
    suite = chatty_suite(tmp_path)
    res = run("tasks", "list", str(suite), "--json", tmp=tmp_path)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)  # json.loads refuses anything before or after the object
    assert [t["title"] for t in data["tasks"]] == ["relu_chatty"]
    for said in SAID:
        assert said in res.stderr, (said, res.stderr)


def test_verify_json_is_one_object_while_the_task_prints(tmp_path):
    task = chatty_suite(tmp_path) / "relu_chatty.py"
    res = run("verify", str(task), str(RELU), "--device", "cpu", "--json", tmp=tmp_path)
    verdict = json.loads(res.stdout)
    assert verdict["status"] == "passed" and res.returncode == 0, (verdict, res.stderr)
    assert all(said in res.stderr for said in SAID), res.stderr


def test_library_json_is_one_object_while_a_task_prints(tmp_path):
    res = run("library", str(chatty_suite(tmp_path)), "--json", tmp=tmp_path)
    data = json.loads(res.stdout)
    assert res.returncode == 0, res.stderr
    assert data["tasks"][0]["task"].startswith("relu_chatty@"), res.stderr
    assert all(said in res.stderr for said in SAID), res.stderr


def test_human_output_still_reaches_stdout(tmp_path):
    res = run("tasks", "show", "level1/relu", "--no-check", "--no-source", tmp=tmp_path)
    assert res.returncode == 0 and "level1/relu" in res.stdout, res.stderr


def test_under_click_runner_results_reach_its_stdout(tmp_path):
    from warpsmith.cli.tasks import tasks_group

    res = CliRunner().invoke(tasks_group, ["list", str(chatty_suite(tmp_path)), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["tasks"][0]["title"] == "relu_chatty"
    assert "python print at import" in res.stderr


def test_notes_on_a_pipe_are_not_wrapped_at_80_columns(tmp_path):
    long = tmp_path / ("a-folder-name-long-enough-to-cross-eighty-columns-" * 2)
    long.mkdir()
    (long / "t.py").write_text("x = (\n")
    res = run("tasks", "list", str(long), tmp=tmp_path)
    lines = [line for line in res.stderr.splitlines() if "not loaded" in line]
    assert len(lines) == 1 and len(lines[0]) > 100 and "syntax error" in lines[0], res.stderr


def test_columns_still_sets_the_width_when_given(tmp_path):
    long = tmp_path / ("b" * 120)
    long.mkdir()
    (long / "t.py").write_text("x = (\n")
    res = run("tasks", "list", str(long), tmp=tmp_path, COLUMNS="60")
    assert max(map(len, res.stderr.splitlines())) <= 60, res.stderr


def test_a_piped_table_keeps_every_column_whole(tmp_path):
    """Rich cut piped tables at 80 columns: the description ended in folds and the last
    columns in ellipses."""
    suite = tmp_path / "wide"
    suite.mkdir()
    words = "a description long enough that eighty columns cannot hold it in one piece"
    source = CHATTY.replace("ReLU, from a task file that talks while it is imported.", words)
    (suite / "relu_with_a_long_name_for_its_column.py").write_text(source)
    res = run("tasks", "list", str(suite), tmp=tmp_path, COLUMNS="")  # as if unset
    assert res.returncode == 0, res.stderr
    row = next(line for line in res.stdout.splitlines() if "relu_with" in line)
    assert "relu_with_a_long_name_for_its_column" in row and words in row, res.stdout
    assert not any(line.endswith(" ") for line in res.stdout.splitlines()), res.stdout


def test_a_piped_source_is_not_padded_to_the_console_width(tmp_path):
    res = run("tasks", "show", "level1/relu", "--no-check", tmp=tmp_path, COLUMNS="")
    assert res.returncode == 0 and "class Model(nn.Module):" in res.stdout, res.stderr
    assert max(map(len, res.stdout.splitlines())) < 200, res.stdout
