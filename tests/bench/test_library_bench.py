"""The offline library over a slice of the built-in level-1 suite on the CPU interpreter, one
task of each cheap family: a bench killed halfway and resumed gives the same report as an
uninterrupted one (issue 7's check). Every level-1 task's own verdict is
tests/library/test_generate.py's; benching all 39 here twice more cost a quarter of CI."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from .test_bench import _count, cli, comparable, rows


def _env(tmp_path, name):
    db = tmp_path / name / "store.sqlite"
    return db, dict(os.environ, WARPSMITH_HOME=str(tmp_path / name / "home"),
                    WARPSMITH_DB=str(db))


TASKS = ("relu,sigmoid,hardtanh,gelu_tanh_fp16,softmax,log_softmax,layer_norm,rms_norm,"
         "sum_last_dim,cumsum")


def test_library_bench_over_level1_killed_and_resumed_matches_an_uninterrupted_one(tmp_path):
    args = ("bench", "builtin/level1", "--generator", "library", "--device", "cpu",
            "--tasks", TASKS)
    _, env = _env(tmp_path, "whole")
    whole = subprocess.run(cli(*args, "--json"), env=env, capture_output=True, text=True,
                           timeout=1200, cwd=tmp_path)
    assert whole.returncode == 0, whole.stderr
    expected = json.loads(whole.stdout)
    assert expected["metrics"]["overall"]["correct"] == len(TASKS.split(","))

    db, env = _env(tmp_path, "killed")
    proc = subprocess.Popen(cli(*args), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=tmp_path)
    deadline = time.monotonic() + 600
    while (not db.exists() or _count(db) < 4) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (bench_id, status), = rows(db, "SELECT id, status FROM benches")
    assert status == "running" and 4 <= _count(db) < expected["bench"]["items_total"]
    again = subprocess.run(cli("bench", "--resume", bench_id, "--json"), env=env,
                           capture_output=True, text=True, timeout=1200, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert _same_files(comparable(json.loads(again.stdout))) == _same_files(comparable(expected))


def _same_files(report: dict) -> dict:
    """Generated candidates live under each run's own home: compare their names only."""
    for row in report["tasks"]:
        row["candidate"] = row["candidate"] and Path(row["candidate"]).name
    return report
