"""The candidate's process boundary, tested below the static scan (which would reject
these candidates before they ran)."""

import os
import secrets
import threading
import time
from dataclasses import replace

import pytest

from warpsmith.config import PROFILES
from warpsmith.verify import static
from warpsmith.verify.pipeline import verify

PROFILE = replace(PROFILES["quick"], timeout_s=120)

RELU_KERNEL = '''@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0),
             mask=mask)
'''

DAEMON = '''
import os
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl

{kernel}

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        if os.fork() == 0:  # a daemon: own session, no inherited fds, an empty environment
            os.setsid()
            os.closerange(0, 1 << 16)
            os.execve("/bin/sleep", ["sleep", {mark!r}], {{}})
        time.sleep(1)  # long enough for the test to see it alive

    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
        return out
'''


def marked(mark: str) -> list[int]:
    """Host pids of processes whose command line holds `mark`."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if mark.encode() in f.read() and _alive(int(pid)):
                    found.append(int(pid))
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\tZ" not in next(line for line in f if line.startswith("State:"))
    except (OSError, StopIteration):
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs Linux /proc")
def test_a_daemon_that_leaves_the_process_group_does_not_outlive_the_verdict(
        tmp_path, monkeypatch):
    mark = f"{secrets.randbelow(10**6)}.{secrets.randbelow(10**6)}"  # sleep's argument
    candidate = tmp_path / "daemon.py"
    candidate.write_text(DAEMON.format(mark=mark, kernel=RELU_KERNEL))
    monkeypatch.setattr(static, "scan", lambda src: static.Scan("triton", ()))
    seen = []
    verifying = threading.Thread(target=verify, args=("level1/relu", candidate),
                                 kwargs={"device": "cpu", "profile": PROFILE})
    verifying.start()
    while verifying.is_alive():
        seen += marked(mark)
        time.sleep(0.05)
    assert seen, "the daemon never started: this test proves nothing"
    time.sleep(0.5)
    assert not marked(mark), "the daemon survived the verifier's clean-up"


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


LOOKS_FOR_INPUTS = '''
import gc

import torch
import torch.nn as nn
import triton
import triton.language as tl

# At import, no guard runs: were any input or seed in this process, answers could be
# computed now. The verifier must have made none yet.
_found = [o for o in gc.get_objects() if isinstance(o, torch.Tensor) and o.dim() > 0]
# plain dicts only: a dict subclass's own get() may run anything (one raised TypeError)
_found += [o for o in gc.get_objects() if type(o) is dict and (
    type(o.get("seed")) is int or type(o.get("seeds")) is list)]
if _found:
    raise RuntimeError(f"found {len(_found)} inputs or seeds before the first call")

{kernel}

class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
        return out
'''


def test_no_input_or_seed_exists_while_the_candidate_is_imported(tmp_path, monkeypatch):
    candidate = tmp_path / "looks.py"
    candidate.write_text(LOOKS_FOR_INPUTS.replace("{kernel}", RELU_KERNEL))
    monkeypatch.setattr(static, "scan", lambda src: static.Scan("triton", ()))
    v = verify("level1/relu", candidate, device="cpu", profile=PROFILE, use_cache=False)
    assert v.status == "passed", v.feedback
