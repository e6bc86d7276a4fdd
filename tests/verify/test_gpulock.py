"""One verification at a time on a GPU, across processes (verify/isolation/gpulock.py). Run
here with the GPU check and the lock's path pointed at a test file: the flock itself is the
real one."""

import subprocess
import sys
import time

from warpsmith.verify.isolation import gpulock

HOLDER = '''
import sys, time
from warpsmith.verify.isolation import gpulock
gpulock._gpu_present = lambda: True
gpulock._path = lambda: sys.argv[1]
with gpulock.exclusive("cuda"):
    print("held", flush=True)
    time.sleep(2.5)
'''


def test_a_second_process_waits_for_the_first_verification_on_the_gpu(tmp_path, monkeypatch):
    lock = str(tmp_path / "gpu.lock")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, lock], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "held"
    monkeypatch.setattr(gpulock, "_gpu_present", lambda: True)
    monkeypatch.setattr(gpulock, "_path", lambda: lock)
    start = time.perf_counter()
    with gpulock.exclusive("cuda"):
        waited = time.perf_counter() - start
    holder.wait(timeout=30)
    assert waited > 1.5, waited  # it held the GPU for 2.5 s from before we asked


def test_the_cpu_takes_no_lock(monkeypatch):
    monkeypatch.setattr(gpulock, "_path", lambda: (_ for _ in ()).throw(AssertionError))
    with gpulock.exclusive("cpu"):
        pass


def test_a_static_rejection_does_not_wait_for_the_gpu(monkeypatch, tmp_path):
    """Issue 28: a file the scan rejects is answered without the GPU's lock, whatever other
    verification holds it (six verify commands at once: scan rejections waited 30-290 s)."""
    from warpsmith.verify import pipeline
    from warpsmith.verify.isolation import gpulock

    def held(device):
        raise AssertionError("the lock was taken for a static rejection")

    monkeypatch.setattr(gpulock, "exclusive", held)
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nclass ModelNew:\n    pass\n")
    v = pipeline.verify("level1/relu", bad, device="cpu", use_cache=False)
    assert v.status == "rejected", v
