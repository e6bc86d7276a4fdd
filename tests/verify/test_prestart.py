"""Spare candidate processes (verify/isolation/prestart.py): started before their job, used
once, thrown away when they no longer fit, never left behind."""

import os
import signal
import time
from pathlib import Path

import pytest

from warpsmith.config import worker_environment
from warpsmith.errors import UsageError
from warpsmith.verify.isolation import prestart
from warpsmith.verify.isolation.sandbox import start_waiting
from warpsmith.verify.pipeline import verify

GOOD = Path(__file__).parent.parent / "kernels" / "good" / "relu_triton.py"


@pytest.fixture
def spares(monkeypatch):
    """A fresh pool in place of the process-wide one, closed after the test."""
    pool = prestart.Spares()
    monkeypatch.setattr(prestart, "SPARES", pool)
    yield pool
    pool.close()


def _spare_pid(pool: prestart.Spares) -> int | None:
    return pool._spare[1].proc.pid if pool._spare else None


def _gone(pid: int, within_s: float = 60) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status") as f:
                if "\tZ" in next(line for line in f if line.startswith("State:")):
                    return True
        except (OSError, StopIteration):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("when", ["after", "ahead"])
def test_the_next_candidate_runs_in_the_spare_started_for_it(spares, monkeypatch, when):
    monkeypatch.setenv("WARPSMITH_PRESTART", when)
    first = verify("level1/relu", GOOD, device="cpu")
    spare = _spare_pid(spares)
    assert first.status == "passed" and spare is not None
    second = verify("level1/relu", GOOD, device="cpu", use_cache=False)
    assert second.status == "passed"
    assert _gone(spare), "the spare took the job and exited"
    assert _spare_pid(spares) not in (None, spare), "a new spare waits for the next job"


def test_off_starts_no_spare(spares, monkeypatch):
    monkeypatch.setenv("WARPSMITH_PRESTART", "off")
    assert verify("level1/relu", GOOD, device="cpu").status == "passed"
    assert spares._spare is None


def test_a_spare_for_another_environment_is_stopped_not_used(spares, tmp_path):
    spares.refill("cpu", worker_environment("cpu"))
    pid = _spare_pid(spares)
    changed = worker_environment("cpu") | {"WARPSMITH_TEST_MARK": "1"}
    assert spares.take("cpu", changed) is None
    assert _gone(pid, within_s=10)


def test_a_variable_a_library_sets_to_its_own_default_keeps_the_spare(spares):
    spares.refill("cpu", worker_environment("cpu"))
    pid = _spare_pid(spares)
    later = worker_environment("cpu") | {"TORCHINDUCTOR_CACHE_DIR": "/tmp/torchinductor_x"}
    taken = spares.take("cpu", later)
    assert taken is not None and taken.proc.pid == pid
    prestart.discard(taken)


def test_a_dead_spare_is_replaced_by_a_fresh_process(spares, monkeypatch):
    monkeypatch.setenv("WARPSMITH_PRESTART", "after")
    spares.refill("cpu", worker_environment("cpu"))
    os.killpg(_spare_pid(spares), signal.SIGKILL)
    assert verify("level1/relu", GOOD, device="cpu", use_cache=False).status == "passed"


def test_a_spare_whose_trusted_side_goes_away_exits(tmp_path):
    started = start_waiting(tmp_path, worker_environment("cpu"), "cpu")
    started.proc.stdin.close()  # what the trusted process's death does to the pipe
    assert started.proc.wait(timeout=120) == 0
    started.stop()


def test_an_unknown_policy_is_a_usage_error(monkeypatch):
    monkeypatch.setenv("WARPSMITH_PRESTART", "sometimes")
    with pytest.raises(UsageError, match="WARPSMITH_PRESTART"):
        prestart.policy("cuda")
