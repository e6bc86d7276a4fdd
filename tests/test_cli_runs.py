"""`runs list` / `runs show` on a run that asked no model: its cost is "no model", not a
sum with unpriced calls."""

import json
import os
import subprocess
import sys


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
    record = json.loads(_ws("runs", "show", run_id, "--json", env=env).stdout)
    assert record["llm_calls"] == 0 and record["unpriced_calls"] == 0
