"""`runs list` / `runs show` on a run that asked no model: its cost is "no model", not a
sum with unpriced calls."""

import json
import os
import subprocess
import sys
from importlib.resources import files

from .llm.server import Reply

FIXED = (files("warpsmith.examples") / "relu_triton.py").read_text()
BROKEN = FIXED.replace("tl.maximum(x, 0.0)", "x")  # forgets the relu: incorrect on negatives


def _ws(*args, env):
    return subprocess.run([sys.executable, "-m", "warpsmith.cli.main", *args], env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_model_free_run_costs_no_model(tmp_path):
    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"),
               WARPSMITH_DB=str(tmp_path / "store.sqlite"), COLUMNS="200")
    done = _ws("optimize", "level1/relu", "--device", "cpu", "--out",
               str(tmp_path / "best.py"), "--json", env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    run_id = json.loads(done.stdout)["run_id"]
    listed = _ws("runs", "list", env=env)
    row = next(line for line in listed.stdout.splitlines() if run_id in line)
    assert "no model" in row and "unpriced" not in row
    shown = _ws("runs", "show", run_id, env=env)
    assert "cost no model" in shown.stdout and "unpriced" not in shown.stdout
    assert "1 attempt, 1 passed" in shown.stdout  # not "1 attempts"
    assert "not measured on the CPU interpreter" in shown.stdout  # the reason was cut at 70
    record = json.loads(_ws("runs", "show", run_id, "--json", env=env).stdout)
    assert record["llm_calls"] == 0 and record["unpriced_calls"] == 0


def test_optimize_db_resume_out_and_resume_refuses_other_settings(tmp_path):
    """optimize had no --db (every other store command has one), and --resume ignored --out
    and silently dropped the settings given with it."""
    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"),
               WARPSMITH_DB=str(tmp_path / "default.sqlite"), COLUMNS="200")
    store = str(tmp_path / "mine.sqlite")
    first = _ws("optimize", "level1/relu", "--device", "cpu", "--db", store, "--out",
                str(tmp_path / "first.py"), "--json", env=env)
    assert first.returncode == 0, first.stderr[-2000:]
    run_id = json.loads(first.stdout)["run_id"]
    assert _ws("runs", "show", run_id, "--db", store, env=env).returncode == 0
    elsewhere = _ws("runs", "show", run_id, env=env)  # the default store never saw it
    assert elsewhere.returncode == 2 and "no run" in elsewhere.stderr
    again = _ws("optimize", "--resume", run_id, "--db", store, "--out",
                str(tmp_path / "again.py"), "--json", env=env)
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout)["best_candidate"] == str(tmp_path / "again.py")
    assert (tmp_path / "again.py").read_text().endswith(
        (tmp_path / "first.py").read_text().split("\n", 1)[1])
    mixed = _ws("optimize", "--resume", run_id, "--db", store, "--samples", "2", env=env)
    assert mixed.returncode == 2 and "Traceback" not in mixed.stderr
    assert mixed.stderr.count("\n") == 1 and "--samples" in mixed.stderr, mixed.stderr


def _answer(code: str) -> Reply:
    return Reply(text=f"Here it is.\n\n```python\n{code}\n```")


def test_an_attempt_has_one_number_in_progress_summary_file_and_runs_show(server, tmp_path):
    """Progress counted the attempts it saw (#1, #2), while `runs show`, the parent column
    and the written file gave the store's id, which counts across every run in the file."""
    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"),
               WARPSMITH_DB=str(tmp_path / "store.sqlite"), COLUMNS="200")
    earlier = _ws("optimize", "level1/relu", "--device", "cpu", "--out",
                  str(tmp_path / "earlier.py"), env=env)  # takes id 1 in the file
    assert earlier.returncode == 0, earlier.stderr[-2000:]
    server.script(_answer(BROKEN), _answer(FIXED))
    best = tmp_path / "best.py"
    done = _ws("optimize", "level1/relu", "--model", f"openai-compatible:{server.url}/v1#coder",
               "--samples", "1", "--depth", "3", "--device", "cpu", "--out", str(best), env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    progress = [line for line in done.stderr.splitlines() if line.startswith("#")]
    assert [line.split()[0] for line in progress] == ["#1", "#2"], done.stderr
    assert "best: #2 passed" in progress[1]
    assert "(attempt #2," in done.stdout and "run " in best.read_text().split("\n")[0]
    assert ", attempt #2:" in best.read_text().split("\n")[0]
    run_id = best.read_text().split()[3].rstrip(",")
    record = json.loads(_ws("runs", "show", run_id, "--json", env=env).stdout)
    assert [a["number"] for a in record["attempts"]] == [1, 2]
    assert record["attempts"][0]["id"] != 1  # the earlier run's attempt came first
    # best_attempt is the number, as optimize --json gives it (it was the store's id)
    assert record["best_attempt"] == 2
    assert record["best_attempt_id"] == record["attempts"][1]["id"]
    listed = json.loads(_ws("runs", "list", "--json", env=env).stdout)["runs"]
    assert next(r for r in listed if r["id"] == run_id)["best_attempt"] == 2
    rows = [line for line in _ws("runs", "show", run_id, env=env).stdout.splitlines()
            if "#1" in line or "#2" in line]
    assert len(rows) == 2 and "#1" in rows[1].split("│")[2], rows  # #2's parent is #1


def test_a_run_of_a_task_file_resumes_from_another_folder(tmp_path):
    """The run stored the task as typed (a relative path), so --resume elsewhere found none."""
    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"),
               WARPSMITH_DB=str(tmp_path / "store.sqlite"))
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    (here / "tasks").mkdir(parents=True)
    elsewhere.mkdir()
    relu = files("warpsmith.tasks") / "builtin" / "level1" / "relu.py"
    (here / "tasks" / "my_relu.py").write_text(relu.read_text())
    run = lambda *a, cwd: subprocess.run([sys.executable, "-m", "warpsmith", *a], env=env,  # noqa: E731
                                         cwd=cwd, capture_output=True, text=True, timeout=600)
    first = run("optimize", "tasks/my_relu.py", "--device", "cpu", "--json", cwd=here)
    assert first.returncode == 0, first.stderr[-2000:]
    run_id = json.loads(first.stdout)["run_id"]
    again = run("optimize", "--resume", run_id, "--json", cwd=elsewhere)
    assert again.returncode == 0, again.stderr[-2000:]
    assert (elsewhere / "my_relu_best.py").is_file()  # named by the title, not relu@digest


def test_a_resumed_run_says_which_calls_its_lanes_line_counts(server, tmp_path):
    """A resumed run printed the run's calls (2) on one line and this session's (1) on the
    next, both as the run's: the lanes line now says it counts since --resume."""
    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"),
               WARPSMITH_DB=str(tmp_path / "store.sqlite"), COLUMNS="200")
    server.script(_answer(BROKEN), _answer(BROKEN + "\n# again\n"))
    first = _ws("optimize", "level1/relu", "--model", f"openai-compatible:{server.url}/v1#c",
                "--samples", "1", "--depth", "4", "--device", "cpu", "--budget", "calls=1",
                "--json", env=env)
    run_id = json.loads(first.stdout)["run_id"]
    again = _ws("optimize", "--resume", run_id, "--budget", "calls=2", env=env)
    assert "2 attempts; 2 LLM calls" in again.stderr, again.stderr
    lanes = next(line for line in again.stderr.splitlines() if "slots busy" in line)
    assert lanes.startswith("since --resume (replayed attempts not counted): "), lanes
    assert "of this session" in lanes and "1 model call," in lanes, lanes
