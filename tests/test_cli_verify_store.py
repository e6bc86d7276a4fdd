"""`warpsmith verify` with a relative candidate path, the way docs/commands.md shows it, stored
that relative path: MCP's find_kernels, started in another folder, cannot tell which file it
names and left the kernel out, although its docs say kernels verified with the CLI show up."""

import json
import os
import subprocess
import sys
from importlib.resources import files

import pytest

GOOD = (files("warpsmith.examples") / "relu_triton.py").read_text()


def test_a_kernel_verified_by_relative_path_is_found_from_another_folder(tmp_path, monkeypatch):
    pytest.importorskip("mcp.server.mcpserver")
    from warpsmith.serve import mcp as server

    work = tmp_path / "work"
    work.mkdir()
    (work / "my_relu.py").write_text(GOOD + "# mine\n")
    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"), COLUMNS="200")
    env.pop("WARPSMITH_DB", None)
    run = lambda *a: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "warpsmith.cli.main", "verify", "level1/relu", "my_relu.py",
         "--device", "cpu", *a], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    done = run()
    assert done.returncode == 0, done.stderr[-2000:]
    assert "←  my_relu.py" in done.stdout.splitlines()[0]  # named as typed
    assert json.loads(run("--json").stdout)["candidate"] == "my_relu.py"

    monkeypatch.setenv("WARPSMITH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("WARPSMITH_DB", raising=False)
    monkeypatch.chdir(tmp_path)  # where an agent's server might run: not `work`
    found = server.find_kernels("level1/relu", limit=5, include_source=True).structured_content
    assert [k["source"] for k in found["kernels"]] == [GOOD + "# mine\n"], found
    assert found["without_source"] == 0
    assert found["kernels"][0]["origin"] == f"file {work / 'my_relu.py'}"
