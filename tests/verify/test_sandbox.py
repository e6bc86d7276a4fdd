"""The candidate's process boundary, tested below the static scan (which would reject
these candidates before they ran)."""

import os
import time
from dataclasses import replace

import pytest

from warpsmith.config import PROFILES
from warpsmith.verify import static
from warpsmith.verify.pipeline import verify

PROFILE = replace(PROFILES["quick"], timeout_s=120)

DAEMON = '''
import os
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl

PID_FILE = {pid_file!r}


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0),
             mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        if os.fork() == 0:  # a daemon in a session of its own, outside the process group
            os.setsid()
            with open(PID_FILE, "w") as f:
                f.write(str(os.getpid()))
            time.sleep(120)
            os._exit(0)

    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
        return out
'''


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\tZ" not in next(line for line in f if line.startswith("State:"))
    except (OSError, StopIteration):
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs Linux /proc")
def test_a_daemon_that_leaves_the_process_group_does_not_outlive_the_verdict(
        tmp_path, monkeypatch):
    pid_file = tmp_path / "daemon.pid"
    candidate = tmp_path / "daemon.py"
    candidate.write_text(DAEMON.format(pid_file=str(pid_file)))
    monkeypatch.setattr(static, "scan", lambda src: static.Scan("triton", ()))
    verify("level1/relu", candidate, device="cpu", profile=PROFILE)
    deadline = time.time() + 10
    while not pid_file.exists() and time.time() < deadline:
        time.sleep(0.1)
    pid = int(pid_file.read_text())
    time.sleep(0.5)
    assert not _alive(pid), "the daemon survived the verifier's clean-up"


def test_a_worker_in_its_empty_cwd_imports_from_a_relative_pythonpath(tmp_path, monkeypatch):
    """Workers run in an empty folder, so `PYTHONPATH=src` (how the tests run where nothing is
    installed) must reach them as an absolute path, or they cannot import warpsmith."""
    import subprocess
    import sys

    from warpsmith.config import worker_environment

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "only_here.py").write_text("FOUND = True\n")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", "pkg")
    env = worker_environment("cpu")
    assert env["PYTHONPATH"] == str(tmp_path.resolve() / "pkg")
    done = subprocess.run([sys.executable, "-c", "import only_here"], cwd=tmp_path / "empty",
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
