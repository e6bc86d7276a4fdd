"""Verifications sharing a GPU, across processes (verify/isolation/gpulock.py, issue 28):
shared while they prepare and check, alone while timed, each within its memory reservation.
Run here with the GPU check and the lock's path pointed at a test file: the flocks are the
real ones."""

import os
import subprocess
import sys
import threading
import time

import pytest

from warpsmith.types import Verdict
from warpsmith.verify import pipeline
from warpsmith.verify.isolation import gpulock

HOLDER = '''
import sys, time
from warpsmith.verify.isolation import gpulock
gpulock._gpu_present = lambda: True
gpulock._path = lambda: sys.argv[1]
with gpulock.held("cuda", alone=sys.argv[2] == "alone") as hold:
    hold.admit(int(sys.argv[3]), 10**12)
    print(hold.mode, flush=True)
    time.sleep(float(sys.argv[4]))
    if sys.argv[5] == "upgrade":
        hold.exclusive()
        print("exclusive", flush=True)
        time.sleep(1.0)
'''


def _holder(lock, mode="alone", reserve=0, sleep=2.5, then="stay"):
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, lock, mode, str(reserve),
                             str(sleep), then], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() in ("shared", "exclusive")
    return proc


@pytest.fixture
def lock(tmp_path, monkeypatch):
    path = str(tmp_path / "gpu.lock")
    monkeypatch.setattr(gpulock, "_gpu_present", lambda: True)
    monkeypatch.setattr(gpulock, "_path", lambda: path)
    return path


def _waited(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def test_a_verification_alone_makes_the_others_wait(lock):
    holder = _holder(lock, "alone")
    with gpulock.held("cuda", alone=False) as hold:  # waits for the exclusive holder
        assert hold.mode == "shared"
    holder.wait(timeout=30)
    assert holder.returncode == 0


def test_two_verifications_share_the_gpu_while_they_check(lock):
    holder = _holder(lock, "share", sleep=3.0)
    start = time.perf_counter()
    with gpulock.held("cuda", alone=False) as hold:
        waited = time.perf_counter() - start
        assert hold.mode == "shared" and hold.crowded
    holder.wait(timeout=30)
    assert waited < 1.5, waited


def test_timing_waits_until_the_others_have_checked(lock):
    holder = _holder(lock, "share", sleep=2.5)
    with gpulock.held("cuda", alone=False) as hold:
        waited = _waited(hold.exclusive)
        assert hold.mode == "exclusive"
    holder.wait(timeout=30)
    assert waited > 1.5, waited


def test_two_that_want_the_gpu_alone_at_once_both_get_it(lock):
    """Each lets its shared lock go before it waits: neither waits on the other forever."""
    holder = _holder(lock, "share", sleep=0.5, then="upgrade")
    with gpulock.held("cuda", alone=False) as hold:
        time.sleep(0.5)
        hold.exclusive()
        assert hold.mode == "exclusive"
    assert holder.stdout.readline().strip() == "exclusive"
    holder.wait(timeout=30)


def test_a_waiting_timer_is_not_starved_by_new_checkers(lock):
    """The turnstile: once a holder waits for the GPU alone, a newcomer waits behind it."""
    first = _holder(lock, "share", sleep=2.0)
    with gpulock.held("cuda", alone=False) as hold:
        hold.exclusive()  # waits ~2 s for `first`
        newcomer = subprocess.Popen(
            [sys.executable, "-c", HOLDER, lock, "share", "0", "0", "stay"],
            stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
        assert newcomer.poll() is None  # still waiting: we hold the GPU alone
    assert newcomer.stdout.readline().strip() == "shared"
    for p in (first, newcomer):
        p.wait(timeout=30)


def test_reservations_admit_what_fits_beside_the_others(lock):
    holder = _holder(lock, "share", reserve=6 << 30, sleep=3.0)
    with gpulock.held("cuda", alone=False) as hold:
        assert not hold.admit(5 << 30, 10 << 30)  # 6 + 5 > 10: take the GPU alone first
        assert hold.admit(4 << 30, 10 << 30)
    holder.wait(timeout=30)
    with gpulock.held("cuda", alone=False) as hold:  # the holder left: its reservation with it
        assert hold.admit(9 << 30, 10 << 30) and not hold.crowded


def test_a_killed_holder_leaves_no_reservation(lock):
    holder = _holder(lock, "share", reserve=8 << 30, sleep=60)
    holder.kill()
    holder.wait(timeout=30)
    with gpulock.held("cuda", alone=False) as hold:
        assert hold.admit(9 << 30, 10 << 30) and not hold.crowded


def test_the_quiet_budget_is_the_one_seen_alone(lock):
    with gpulock.held("cuda", alone=False) as hold:
        assert hold.quiet(100) == 100  # alone: recorded
    holder = _holder(lock, "share", sleep=3.0)
    with gpulock.held("cuda", alone=False) as hold:
        assert hold.quiet(40) == 100  # beside another: the budget it would have alone
    holder.wait(timeout=30)


def test_the_cpu_takes_no_lock(monkeypatch):
    monkeypatch.setattr(gpulock, "_path", lambda: (_ for _ in ()).throw(AssertionError))
    with gpulock.held("cpu") as hold:
        assert hold.admit(1 << 50, 0) and not hold.crowded


def test_a_static_rejection_does_not_wait_for_the_gpu(monkeypatch, tmp_path):
    """Issue 28: a file the scan rejects is answered without the GPU's lock, whatever other
    verification holds it (six verify commands at once: scan rejections waited 30-290 s)."""
    def held(device, alone=False):
        raise AssertionError("the lock was taken for a static rejection")

    monkeypatch.setattr(gpulock, "held", held)
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nclass ModelNew:\n    pass\n")
    v = pipeline.verify("level1/relu", bad, device="cpu", use_cache=False)
    assert v.status == "rejected", v


def _verdict(status, *reasons):
    return Verdict(status=status, task="t", candidate="c.py", device="cuda", reasons=reasons)


@pytest.mark.parametrize("verdict, by_load", [
    (_verdict("too_large", "the plan needs 90 GiB"), True),
    (_verdict("timeout", "no answer within 300 s"), True),
    (_verdict("runtime_error", "OutOfMemoryError during forward: CUDA out of memory"), True),
    (_verdict("runtime_error", "RuntimeError during forward: Triton Error [CUDA]: out of "
                               "memory"), True),
    (_verdict("compile_error", "OutOfMemoryError during import: CUDA out of memory"), True),
    (_verdict("crashed", "the candidate's process held about 9 GiB of GPU memory beyond its "
                         "share of the memory plan (1 GiB) while timed"), True),
    (_verdict("runtime_error", "ValueError during forward: shapes differ"), False),
    (_verdict("incorrect", "OutOfMemoryError during forward"), False),
    (_verdict("passed"), False),
])
def test_which_verdicts_the_load_may_have_decided(verdict, by_load):
    assert pipeline.decided_by_load(verdict) == by_load
    # said once the verification had the GPU alone, the candidate's words buy no second
    # run (a re-roll of its timing); the trusted side's own too_large still does
    assert pipeline.decided_by_load(verdict, went_alone=True) == (
        verdict.status == "too_large")


PLANNER = '''
import sys, time
from warpsmith.verify import pipeline
from warpsmith.verify.checks import memplan
from warpsmith.verify.isolation import gpulock
gpulock._gpu_present = lambda: True
gpulock._path = lambda: sys.argv[1]
memplan.available = lambda device: 70 << 30
def plan(*a, **k):
    raise memplan.TooLarge(90 << 30, 70 << 30, "cuda")  # this GPU never holds the task
memplan.plan = plan
with gpulock.held("cuda", alone=False) as hold:
    time.sleep(1.5)  # both registered before either plans
    try:
        pipeline._planned(None, "s", None, "cuda", hold)
    except memplan.TooLarge:
        print("too_large", flush=True)
'''


def test_two_that_never_fit_are_both_too_large_not_waiting_on_each_other(lock):
    """Two sharing verifications whose plans fit no budget, each registered: neither holds a
    reservation, so neither waits for the other (they let each other first forever before:
    red-team round of 2026-12-08)."""
    procs = [subprocess.Popen([sys.executable, "-c", PLANNER, lock], stdout=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert outs == ["too_large", "too_large"]


def test_a_verdict_memory_decided_beside_others_is_made_again_alone(monkeypatch, lock):
    """A candidate never pays for the load: an out-of-memory while the GPU was shared is
    run again with the GPU to itself, and that verdict stands."""
    modes = []

    def run(task, candidate, device, prof, base, hold):
        modes.append(hold.mode)
        if hold.mode == "shared":
            hold.crowded = True
            return _verdict("runtime_error", "OutOfMemoryError during forward")
        return _verdict("incorrect", "output 0 differs")

    monkeypatch.setattr(pipeline, "_guarded_run", run)
    monkeypatch.setattr(pipeline, "gpu_shared", lambda: True)
    verdict = pipeline._held_run(None, None, "cuda", None, None)
    assert modes == ["shared", "exclusive"] and verdict.status == "incorrect"
    assert any("GPU to itself" in w for w in verdict.warnings)


@pytest.mark.parametrize("text", ["[1, 2]", '{"holds": [1]}', '{"seq": "x", "quiet": "y"}',
                                  '{"holds": {"a": {"pid": "p"}}}', "{\"holds\""])
def test_a_broken_ledger_is_started_again(lock, text):
    with open(lock + ".ledger", "w") as f:
        f.write(text)
    with gpulock.held("cuda", alone=False) as hold:
        assert hold.admit(1, 10) and not hold.crowded and hold.quiet(7) == 7


def test_without_sharing_a_verification_has_the_gpu_alone_from_the_start(lock, monkeypatch):
    """Sharing is the `local:N` executor's choice (config.gpu_shared): two verify commands,
    pytest -n or a reward service beside a bench each have the GPU alone, as before."""
    modes = []
    monkeypatch.setattr(pipeline, "_guarded_run",
                        lambda *a: modes.append(a[-1].mode) or _verdict("passed"))
    monkeypatch.delenv("WARPSMITH_GPU_SHARED", raising=False)
    pipeline._held_run(None, None, "cuda", None, None)
    assert modes == ["exclusive"]


def test_alone_still_counts_the_memory_of_those_waiting_to_be_timed(lock):
    """A holder waiting for its timing keeps its memory: the exclusive lock does not free it."""
    holder = _holder(lock, "share", reserve=6 << 30, sleep=2.0, then="upgrade")
    with gpulock.held("cuda", alone=False) as hold:
        hold.exclusive()  # taken while the holder, its shared lock let go, waits
        assert not hold.admit(5 << 30, 10 << 30) and hold.others_reserved() == 6 << 30
        hold.let_others_first()  # it is timed and leaves; then the GPU is ours again
        assert hold.mode == "exclusive"
    holder.wait(timeout=30)


def test_lock_files_that_are_not_ours_leave_the_lock_to_this_process(lock, tmp_path):
    """A symbolic link (or another user's file) where the lock file should be is never
    opened through: this process's threads still take turns, and nothing is written."""
    victim = tmp_path / "victim"
    victim.write_text("keep")
    os.symlink(victim, lock + ".turnstile")
    with gpulock.held("cuda", alone=False) as hold:
        assert hold.mode == "exclusive" and hold.admit(1 << 50, 0)
        entered = threading.Event()

        def second():
            with gpulock.held("cuda"):
                entered.set()

        waiting = threading.Thread(target=second, daemon=True)
        waiting.start()
        assert not entered.wait(0.5)  # the second waits for the first: one at a time
    assert entered.wait(10)
    waiting.join(10)
    assert victim.read_text() == "keep"


def test_a_verdict_says_when_the_lock_files_could_not_be_had(lock, monkeypatch):
    """A file planted where the lock should be leaves other processes' timings free to
    overlap this one's: the verdict's warnings say so (red-team round of 2026-12-08)."""
    os.symlink("/nonexistent", lock + ".turnstile")
    monkeypatch.setattr(pipeline, "_guarded_run", lambda *a: _verdict("passed"))
    verdict = pipeline._held_run(None, None, "cuda", None, None)
    assert any("lock files" in w and "another process" in w for w in verdict.warnings)
    os.unlink(lock + ".turnstile")
    verdict = pipeline._held_run(None, None, "cuda", None, None)
    assert not any("lock files" in w for w in verdict.warnings)
