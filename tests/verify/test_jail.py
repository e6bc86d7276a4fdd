"""The OS sandbox (verify/isolation/jail.py), met as an attacker meets it: through the
`warpsmith verify` command, with the static scan switched off so that only the process and OS
layers stand.

Red-team files marked `# layer: os` run here; the kill tests end the verifier mid-run (SIGKILL,
Ctrl-C) and then look for any process of that job on the host.
"""

import json
import os
import secrets
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from warpsmith.verify.isolation import jail

from .conftest import corpus, header
from .test_sandbox import marked

needs_jail = pytest.mark.skipif(not jail.current().ok,
                                reason=f"no OS sandbox here: {jail.current().detail}")

# The CLI with the static scan reduced to naming the kernel language.
CLI = ("import sys\n"
       "from warpsmith.verify import static\n"
       "static.scan = lambda src: static.Scan('triton', ())\n"
       "from warpsmith.cli.main import main\n"
       "sys.exit(main())\n")

SPINNER = '''
import os
import time

import torch.nn as nn

if os.fork() == 0:  # a child that outlives nothing: the sandbox must take it down
    os.execv("/bin/sleep", ["sleep", {mark!r}])


class ModelNew(nn.Module):
    def forward(self, x):
        while True:
            time.sleep(0.01)
'''


def _cli(*args: str, env: dict | None = None, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CLI, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, **kw)


def _wait_for(mark: str, proc: subprocess.Popen, seconds: float = 120) -> list[int]:
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None:
        found = marked(mark)
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"the candidate's child never started: {proc.stderr.read().decode()[-2000:]}")


def test_where_bubblewrap_is_installed_candidates_run_in_it():
    """CI installs bubblewrap (.ci/run): there a missing sandbox is a failure, not a skip."""
    if not (os.environ.get("WARPSMITH_BWRAP") or __import__("shutil").which("bwrap")):
        pytest.skip("bubblewrap is not installed here")
    assert jail.current().ok, jail.current().detail


@needs_jail
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["kill", "ctrl-c"])
def test_no_process_of_the_job_outlives_a_killed_verifier(tmp_path, how):
    mark = f"{secrets.randbelow(10**6)}.{secrets.randbelow(10**6)}"
    candidate = tmp_path / "spin.py"
    candidate.write_text(SPINNER.format(mark=mark))
    proc = _cli("verify", "level1/relu", str(candidate), "--device", "cpu", "--no-cache",
                "--db", str(tmp_path / "v.sqlite"))
    children = _wait_for(mark, proc)
    proc.send_signal(how)
    proc.wait(timeout=120)  # 60 s ran out once on a 2-core machine running two suites at once
    deadline = time.time() + 10
    while marked(mark) and time.time() < deadline:
        time.sleep(0.1)
    assert children and not marked(mark), "a process of the job outlived the verifier"


@needs_jail
@pytest.mark.parametrize("path", [p for p in corpus("redteam") if "# layer: os" in
                                  p.read_text()], ids=lambda p: p.stem)
def test_os_level_attack_fails_through_the_cli(path, tmp_path):
    db = tmp_path / "verdicts.sqlite"
    proc = _cli("verify", header(path, "task"), str(path), "--device", "cpu", "--json",
                "--no-cache", "--db", str(db), cwd=tmp_path)
    try:
        out, err = proc.communicate(timeout=240)  # a stopped verifier would never answer
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the verifier hung: the candidate stopped it")
    lines = out.decode().strip().splitlines()
    assert len(lines) == 1, f"stdout is not one JSON verdict: {out[-500:]!r} {err[-1500:]!r}"
    verdict = json.loads(lines[0])
    assert verdict["status"] != "passed" and verdict["environment"]["sandbox"] == "bwrap"
    assert proc.returncode == 1, err.decode()[-1500:]
    triggers = sqlite3.connect(db).execute(
        "select name from sqlite_master where type = 'trigger'").fetchall()
    assert triggers == [], "the candidate changed the verdict store"


@needs_jail
def test_the_worker_sees_only_its_own_processes_and_cannot_write_outside_scratch(tmp_path):
    from warpsmith.verify.isolation.sandbox import run_worker

    probe = tmp_path / "job"
    probe.mkdir()
    code = ("import os, sys, json\n"
            "procs = [p for p in os.listdir('/proc') if p.isdigit()]\n"
            "def writable(d):\n"
            "    try:\n"
            "        open(os.path.join(d, 'x'), 'w').close(); return True\n"
            "    except OSError:\n"
            "        return False\n"
            f"dirs = {[str(Path.cwd()), str(Path.home()), '/usr', '/etc']!r}\n"
            "report = {'procs': len(procs), 'uid': os.getuid(),\n"
            "          'writable': [d for d in dirs if writable(d)]}\n"
            "body = json.dumps(report).encode()\n"
            "import struct\n"
            "fd = int(sys.argv[-1])\n"
            "os.write(fd, b'WSR1' + struct.pack('<Q', len(body)) + body + struct.pack('<Q', 0))\n")
    scratch = tmp_path / "cwd"
    scratch.mkdir()
    out = run_worker(probe, scratch, 60, dict(os.environ), 1 << 20, program=("-c", code))
    assert out.report is not None, out.log_tail
    assert out.report["procs"] <= 3, out.report  # bubblewrap's init, the worker, at most one
    assert out.report["writable"] == []
    if os.geteuid() == 0:
        assert out.report["uid"] >= jail.UID_BASE


@needs_jail
def test_a_hidden_folder_on_sys_path_is_not_bound_back(monkeypatch):
    """A script run from /tmp puts /tmp on sys.path: binding it back would expose every other
    job's scratch folder and make the job's own /tmp read-only."""
    monkeypatch.syspath_prepend("/tmp")
    wrapped = jail.wrap(jail.current(), ["true"], writable=[Path("/tmp")], uid=None,
                        keep_fds=())
    for fd in wrapped.close_after:
        os.close(fd)
    argv = wrapped.argv
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind-try"]
    assert "/tmp" not in binds


@needs_jail
def test_a_python_folder_nested_in_a_hidden_one_is_reachable_by_the_job(tmp_path, monkeypatch):
    """A clone under /tmp (CI's, say) puts its venv and src there: the folders bubblewrap makes
    on the way to them must let the job's uid through, or the worker cannot import warpsmith."""
    nested = tmp_path / "clone" / "src"
    nested.mkdir(parents=True)
    (nested / "only_in_the_clone.py").write_text("FOUND = True\n")
    monkeypatch.syspath_prepend(str(nested))
    scratch = tmp_path / "cwd"
    scratch.mkdir()
    uid = jail.new_uid()
    jail.give(scratch, uid)
    wrapped = jail.wrap(jail.current(), [sys.executable, "-c", "import only_in_the_clone"],
                        writable=[scratch], uid=uid, keep_fds=())
    try:
        done = subprocess.run(wrapped.argv, pass_fds=wrapped.pass_fds, capture_output=True,
                              text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(nested)))
    finally:
        for fd in wrapped.close_after:
            os.close(fd)
    assert done.returncode == 0, done.stderr


@needs_jail
def test_the_scratch_folder_is_a_bounded_tmpfs_and_the_job_dies_first_on_oom(tmp_path):
    """Nothing written in the working folder reaches the host's disk (many files of 8 GiB
    each would fill it), and the kernel's OOM killer picks the job before the verifier."""
    scratch = tmp_path / "cwd"
    scratch.mkdir()
    uid = jail.new_uid()
    jail.give(scratch, uid)
    code = ("import os\n"
            "open('written_inside', 'w').write('x')\n"
            "st, tmp = os.statvfs('.'), os.statvfs('/tmp')\n"
            "print(open('/proc/self/oom_score_adj').read().strip(), st.f_blocks * st.f_frsize,\n"
            "      tmp.f_blocks * tmp.f_frsize)\n")
    wrapped = jail.wrap(jail.current(), [sys.executable, "-c", code], writable=[scratch],
                        uid=uid, keep_fds=())
    try:
        done = subprocess.run(wrapped.argv, pass_fds=wrapped.pass_fds, capture_output=True,
                              text=True, timeout=60)
    finally:
        for fd in wrapped.close_after:
            os.close(fd)
    assert done.returncode == 0, done.stderr
    score, size, tmp = done.stdout.split()
    assert int(size) <= jail.SCRATCH_BYTES
    # the private /tmp is memory: sized by the machine (an eighth of it, 1 to 16 GiB)
    assert int(tmp) <= jail.tmp_bytes() <= max(1 << 30, os.sysconf("SC_PAGE_SIZE") *
                                                 os.sysconf("SC_PHYS_PAGES") // 8)
    assert not (scratch / "written_inside").exists()
    if __import__("shutil").which("choom"):
        assert int(score) == jail.OOM_SCORE_ADJ


@needs_jail
def test_the_job_folder_is_read_only_inside_the_sandbox(tmp_path):
    """The job's code is bound read-only: nothing can be left there, and no file written
    there takes the host's memory (/dev/shm) until the verdict."""
    from warpsmith.config import worker_environment
    from warpsmith.verify.isolation.sandbox import run_worker

    job, scratch = tmp_path / "job", tmp_path / "cwd"
    job.mkdir()
    scratch.mkdir()
    (job / "code.py").write_text("x = 1\n")
    code = ("import os, sys\nfrom warpsmith.verify.protocol import write_frame\n"
            "try:\n    open(os.path.join(sys.argv[1], 'x'), 'w').write('x')\n    r = 'wrote'\n"
            "except OSError as e:\n    r = e.strerror\n"
            "write_frame(int(sys.argv[-1]), {'stage': 'done', 'r': r, 'read': "
            "open(os.path.join(sys.argv[1], 'code.py')).read()})\nos._exit(0)\n")
    out = run_worker(job, scratch, 60, worker_environment("cpu"), 1 << 20,
                     program=("-c", code))
    assert out.report["r"] == "Read-only file system" and out.report["read"] == "x = 1\n"
    assert not (job / "x").exists()
