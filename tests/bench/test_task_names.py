"""A task from a folder is stored as NAME@DIGEST: two folders' relu.py, which the store keyed
by the bare name `relu` (verdicts, bench items, find_kernels), stay apart there, a copy of a
file is the same task, and reports still read `relu`."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys

from warpsmith.tasks import load_suite, resolve_task

from .conftest import BUILTIN, KERNELS

RELU = BUILTIN / "level1" / "relu.py"


def folders(tmp_path):
    a, b, copy = (tmp_path / n for n in ("a", "b", "copy"))
    for folder in (a, b, copy):
        folder.mkdir()
    shutil.copy(RELU, a / "relu.py")
    shutil.copy(RELU, copy / "relu.py")
    (b / "relu.py").write_text(RELU.read_text().replace("* 2.0 + 0.1", "* 3.0"))
    return a, b, copy


def test_same_named_tasks_of_two_folders_have_two_names_and_one_title(tmp_path):
    a, b, copy = folders(tmp_path)
    (ta,), (tb,), (tc,) = (load_suite(f)[0] for f in (a, b, copy))
    assert ta.name != tb.name and ta.title == tb.title == "relu"
    assert ta.name.startswith("relu@") and tc.name == ta.name  # the same file: the same task
    assert resolve_task(a / "relu.py").name == ta.name  # the file alone, as its folder has it
    assert resolve_task("level1/relu").name == "level1/relu"  # built-in names stay bare


def _ws(*args, env):
    return subprocess.run([sys.executable, "-m", "warpsmith", *args], env=env,
                          capture_output=True, text=True, timeout=600)


def test_two_folders_benched_into_one_store_stay_apart_and_read_plainly(tmp_path):
    a, b, _ = folders(tmp_path)
    db = tmp_path / "s.sqlite"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARPSMITH_")}
    env |= {"WARPSMITH_HOME": str(tmp_path / "home"), "WARPSMITH_DB": str(db)}
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    shutil.copy(KERNELS / "good" / "relu_triton.py", kernels / "relu.py")  # found by title
    ids = []
    for folder in (a, b):
        done = _ws("bench", str(folder), "--generator", f"dir:{kernels}", "--device", "cpu",
                   "--json", env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        report = json.loads(done.stdout)
        ids.append(report["bench"]["id"])
        assert [(r["title"], r["status"]) for r in report["tasks"]] == [("relu", "passed")]
    with sqlite3.connect(db) as conn:
        stored = {t for (t,) in conn.execute("SELECT task FROM verdicts")}
        items = {t for (t,) in conn.execute("SELECT task FROM bench_items")}
    assert len(stored) == 2 and len(items) == 2 and all(t.startswith("relu@") for t in items)
    shown = _ws("report", ids[0], env=env)
    assert "| relu | passed |" in shown.stdout, shown.stdout
    compared = _ws("report", ids[0], ids[1], env=env)
    assert "different task sets" in compared.stdout + compared.stderr
    assert "| relu@" in compared.stdout  # two relus side by side keep their digests
