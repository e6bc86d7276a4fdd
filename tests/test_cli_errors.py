"""Usage and environment errors, as a user meets them: a real `warpsmith` process, one
`error: …` line on stderr and exit 2 (scripts read 1 as "the candidate failed"); a verdict
this machine could not give is exit 3; a bug keeps its traceback."""

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from warpsmith.cli import main as cli_main

ROOT = Path(__file__).parent.parent
RELU = ROOT / "src" / "warpsmith" / "examples" / "relu_triton.py"


def run(*args, tmp: Path, **env):
    base = {k: v for k, v in os.environ.items() if not k.startswith("WARPSMITH_")}
    base |= {"WARPSMITH_HOME": str(tmp / "home"), "WARPSMITH_DB": str(tmp / "s.sqlite")}
    base |= env
    cmd = [sys.executable, "-m", "warpsmith", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=base, cwd=tmp, timeout=600)


def one_line_error(res, *words):
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def test_a_binary_candidate_is_a_usage_error(tmp_path):
    (tmp_path / "blob.py").write_bytes(bytes(range(128, 256)) * 4)
    res = run("verify", "level1/relu", "blob.py", "--device", "cpu", tmp=tmp_path)
    one_line_error(res, "blob.py", "not Python source")


def test_a_store_that_is_not_sqlite(tmp_path):
    (tmp_path / "notes.txt").write_text("not a database, just notes\n" * 100)
    one_line_error(run("runs", "list", "--db", "notes.txt", tmp=tmp_path), "notes.txt")
    res = run("verify", "level1/relu", str(RELU), "--device", "cpu", "--db", "notes.txt",
              tmp=tmp_path)
    one_line_error(res, "notes.txt", "cannot be the store")


def test_a_home_under_a_regular_file(tmp_path):
    (tmp_path / "file").write_text("")
    home = str(tmp_path / "file" / "home")
    res = run("runs", "list", tmp=tmp_path, WARPSMITH_HOME=home, WARPSMITH_DB="")
    one_line_error(res, home, "is a file")
    db = str(tmp_path / "file" / "s.sqlite")  # the same with the store's own path
    one_line_error(run("report", tmp=tmp_path, WARPSMITH_DB=db), "is a file")


def test_out_in_a_missing_folder_fails_before_any_work(tmp_path):
    res = run("report", "bench-none", "--out", "missing/r.md", tmp=tmp_path)
    one_line_error(res, "missing/r.md", "no folder missing")
    res = run("export", "run-none", "--format", "sft", "--out", "missing/x.jsonl", tmp=tmp_path)
    one_line_error(res, "missing/x.jsonl")
    assert not (tmp_path / "missing").exists()


def test_click_usage_errors_are_one_line_with_the_help_to_read(tmp_path):
    line = one_line_error(run("verify", "level1/relu", tmp=tmp_path), "CANDIDATE")
    assert line.endswith("(see `python -m warpsmith verify --help`)")
    one_line_error(run("tasks", "show", "x", "--gpu", "V100", tmp=tmp_path), "V100")
    one_line_error(run("no-such-command", tmp=tmp_path), "no-such-command")


def test_device_cuda_without_a_gpu_is_an_environment_error(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is here")
    res = run("verify", "level1/relu", str(RELU), "--device", "cuda", tmp=tmp_path)
    one_line_error(res, "--device cuda", "no GPU")
    one_line_error(run("optimize", "level1/relu", "--device", "cuda", tmp=tmp_path), "no GPU")


def test_a_verdict_this_machine_cannot_give_exits_3(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is here: the CUDA candidate is judged")
    cuda = ROOT / "tests" / "kernels" / "bad" / "needs_gpu_cuda.py"
    res = run("verify", "level1/relu", str(cuda), "--device", "cpu", tmp=tmp_path)
    assert res.returncode == 3 and "needs_gpu" in res.stdout, (res.stdout, res.stderr)


def test_an_unexpected_exception_keeps_its_traceback(monkeypatch):
    @click.command("explode")
    def explode():
        raise RuntimeError("a bug, not a usage error")

    monkeypatch.setitem(cli_main.cli.commands, "explode", explode)
    monkeypatch.setattr(sys, "argv", ["warpsmith", "explode"])
    with pytest.raises(RuntimeError, match="a bug"):
        cli_main.main()


def test_serving_on_a_port_already_taken_is_a_usage_error(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        res = run("serve", "reward", "--no-auth", "--device", "cpu", "--port", port,
                  tmp=tmp_path)
    one_line_error(res, f"127.0.0.1:{port}", "--port")


def test_a_bench_set_up_wrong_is_one_line_with_no_blank_line_before_it(tmp_path):
    """The progress bar started before the bench was set up and left a blank line ahead of
    the error (an unknown generator, a task the suite lacks)."""
    for args, word in ((["--generator", "bogus"], "unknown generator"),
                       (["--generator", "library", "--tasks", "nope"], "no task nope")):
        res = run("bench", "builtin/level1", "--device", "cpu", *args, tmp=tmp_path)
        assert res.returncode == 2 and res.stderr.startswith("error: "), res.stderr
        assert res.stderr.count("\n") == 1 and word in res.stderr, res.stderr


def test_optimize_without_a_task_says_so_and_nothing_else(tmp_path):
    one_line_error(run("optimize", tmp=tmp_path), "give a TASK")
    assert run("optimize", tmp=tmp_path).stderr.startswith("error: ")
