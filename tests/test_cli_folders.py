"""The folders the tools write to, as a stranger meets them: an unwritable home with a good
--db works, a bad folder is one line naming the setting that moves it before any work starts,
a run's and a bench's files live beside the store chosen, a found kernel survives a failed
write, and Ctrl-C exits 130."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .test_cli_errors import RELU, one_line_error, run


def _blocked(tmp: Path) -> Path:
    """A path no one can write to, even root: it lies under a regular file."""
    (tmp / "file").write_text("")
    return tmp / "file" / "below"


@pytest.mark.parametrize("command", [
    ("optimize", "level1/relu"),
    ("bench", "builtin/level1", "--generator", "reference", "--tasks", "relu"),
    ("verify", "level1/relu", str(RELU)),
])
def test_an_unusable_store_folder_is_one_line_naming_db(tmp_path, command):
    db = str(_blocked(tmp_path) / "s.sqlite")
    line = one_line_error(run(*command, "--device", "cpu", "--db", db, tmp=tmp_path), "--db")
    assert "not a folder" in line
    line = one_line_error(run(*command, "--device", "cpu", tmp=tmp_path, WARPSMITH_DB=db),
                          "$WARPSMITH_DB")
    home = str(_blocked(tmp_path))
    one_line_error(run(*command, "--device", "cpu", tmp=tmp_path, WARPSMITH_DB="",
                       WARPSMITH_HOME=home), "$WARPSMITH_HOME")
    assert not list(tmp_path.glob("*.sqlite"))


def test_optimize_checks_the_folder_its_kernel_goes_to(tmp_path):
    blocked = _blocked(tmp_path)
    res = run("optimize", "level1/relu", "--device", "cpu", "--out", str(blocked / "k.py"),
              tmp=tmp_path)
    one_line_error(res, "--out")
    res = run("optimize", "level1/relu", "--device", "cpu", "--model", "openai:gpt-4.1",
              tmp=tmp_path, WARPSMITH_LLM_CACHE=str(blocked / "c.sqlite"),
              OPENAI_API_KEY="unused")
    one_line_error(res, "$WARPSMITH_LLM_CACHE")
    assert not (tmp_path / "s.sqlite").exists()  # refused before the run was recorded


@pytest.mark.slow  # one verification on the CPU interpreter (~10-30 s)
def test_a_bench_with_an_unusable_home_and_a_good_db_keeps_its_files_beside_it(tmp_path):
    store = tmp_path / "mine" / "s.sqlite"
    store.parent.mkdir()
    res = run("bench", "builtin/level1", "--generator", "reference", "--tasks", "relu",
              "--device", "cpu", "--db", str(store), tmp=tmp_path,
              WARPSMITH_HOME=str(_blocked(tmp_path)), WARPSMITH_DB="")
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    files = list((store.parent / "s-files" / "bench").glob("bench-*/*.py"))
    assert files, list(store.parent.rglob("*"))


@pytest.mark.slow  # one verification on the CPU interpreter (~10-30 s)
def test_a_kernel_whose_out_cannot_be_written_is_kept_in_the_run_folder(tmp_path):
    from warpsmith.search import Settings, optimize
    from warpsmith.search.registry import LIBRARY

    out = _blocked(tmp_path) / "k.py"  # the API checks nothing up front: the write fails
    result = optimize("level1/relu", LIBRARY, LIBRARY, Settings(device="cpu"), out=out,
                      db=tmp_path / "s.sqlite")
    assert result.best is not None
    assert result.best_path == tmp_path / "s-files" / "runs" / result.run_id / "best.py"
    assert "class ModelNew" in result.best_path.read_text()
    assert str(out) in result.note and f"--resume {result.run_id}" in result.note


@pytest.mark.slow  # starts a bench and interrupts it (~10 s)
def test_ctrl_c_exits_130_with_the_line_that_resumes(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARPSMITH_")}
    env |= {"WARPSMITH_HOME": str(tmp_path / "home"), "WARPSMITH_DB": str(tmp_path / "s.db")}
    cmd = [sys.executable, "-m", "warpsmith", "bench", "builtin/level1", "--generator",
           "reference", "--device", "cpu"]
    # SIG_DFL: a test run started in the background inherits SIGINT ignored
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first = proc.stderr.readline()  # "bench BENCH_ID": recorded, the items start now
    assert first.startswith("bench "), first
    proc.send_signal(signal.SIGINT)
    rest = proc.communicate(timeout=300)[1]
    assert proc.returncode == 130, rest
    assert f"warpsmith bench --resume {first.split()[1]}" in rest
    assert "Traceback" not in rest
