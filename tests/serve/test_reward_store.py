"""Stored verdicts are answered before anything is queued; identical candidates in flight are
verified once; a stored verdict never answers for another task, profile or device, and the
machine's limits are never stored as the candidate's.

The fast tests use KeyedExecutor: it runs no candidate, but keys its verdicts exactly as the
verifier does (verify.pipeline.cache_key over verify.pipeline.environment), so what the
service finds is what a real verification would have stored. The slow test runs the real
verifier on the CPU interpreter."""

import re
import threading
import time
from pathlib import Path

import pytest

from warpsmith.config import profile as get_profile
from warpsmith.executors import InlineExecutor
from warpsmith.store import VerdictStore
from warpsmith.types import Verdict
from warpsmith.verify.pipeline import cache_key, environment

from .test_reward import AUTH, GOOD, body, service


class KeyedExecutor:
    """The verdict's status is read from a `# status: NAME` line (default passed); a candidate
    with `# gate` waits for `gate`. `extra` is added to the environment, as a worker on
    another machine (another GPU) would have it."""

    slots = 1

    def __init__(self, extra: dict | None = None):
        self.calls: list[tuple[str, str, str]] = []
        self.extra = extra or {}
        self.gate, self.started = threading.Event(), threading.Event()

    def verify(self, task, candidate, device=None, profile="quick", store_path=None):
        assert store_path is None  # the service stores, not the executor
        source = Path(candidate).read_text()
        self.calls.append((task.name, profile, source))
        if "# gate" in source:
            self.started.set()
            assert self.gate.wait(60)
        device = device or "cpu"
        env = environment(device) | self.extra
        status = m[1] if (m := re.search(r"# status: (\w+)", source)) else "passed"
        return Verdict(status, task.name, str(candidate), device, correct=status == "passed",
                       environment=env, cache_key=cache_key(task, source, device,
                                                            get_profile(profile), env))

    def close(self):
        pass


def post(client, *candidates, task="level1/relu", timeout=120) -> list[dict]:
    r = client.post("/v1/verify", json=body(*candidates, task=task), headers=AUTH,
                    timeout=timeout)
    assert r.status_code == 200, r.text
    return r.json()["items"]


def in_thread(fn) -> tuple[threading.Thread, dict]:
    out: dict = {}
    thread = threading.Thread(target=lambda: out.update(r=fn()))
    thread.start()
    return thread, out


def test_a_stored_candidate_answers_while_a_fresh_one_is_still_verifying(tmp_path):
    executor = KeyedExecutor()
    with service(executor, tmp_path, per_client=8) as client:
        assert post(client, GOOD)[0]["attempts"] == 1  # fresh: verified, stored
        slow, fresh = in_thread(lambda: post(client, GOOD + "# gate\n"))
        assert executor.started.wait(30)  # the only slot is held by the fresh one
        # queued, it would wait behind the gated one: the client gives up (ReadTimeout)
        again = post(client, GOOD, GOOD, timeout=20)
        still_verifying = slow.is_alive()
        health = client.get("/health").json()
        executor.gate.set()
        slow.join(30)
    assert still_verifying, "the stored candidate waited for the fresh verification"
    assert [(i["status"], i["attempts"], i["verdict"]["cached"]) for i in again] == [
        ("passed", 0, True)] * 2
    assert fresh["r"][0]["status"] == "passed" and fresh["r"][0]["verdict"]["cached"] is False
    assert health["stored_answers"] == 2 and health["in_flight"] == 1
    assert len(executor.calls) == 2


def test_identical_candidates_in_flight_are_verified_once(tmp_path):
    executor = KeyedExecutor()
    gated = GOOD + "# gate\n"
    with service(executor, tmp_path, per_client=8) as client:
        first, a = in_thread(lambda: post(client, gated))
        assert executor.started.wait(30)
        second, b = in_thread(lambda: post(client, gated, GOOD + "# other\n"))
        deadline = time.monotonic() + 30  # the twin has joined once health counts it
        while client.get("/health").json()["shared_answers"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        executor.gate.set()
        first.join(30)
        second.join(30)
    assert [source for _, _, source in executor.calls].count(gated) == 1
    assert a["r"][0]["status"] == b["r"][0]["status"] == b["r"][1]["status"] == "passed"
    assert b["r"][0]["attempts"] == 1 and b["r"][0]["verdict"]["cached"] is False


def test_a_stored_verdict_never_answers_for_another_task_profile_or_device(tmp_path):
    executor = KeyedExecutor()
    with service(executor, tmp_path) as client:
        post(client, GOOD)
        other_task = post(client, GOOD, task="level1/sigmoid")[0]
        same = post(client, GOOD)[0]
    with service(executor, tmp_path, profile="thorough") as client:
        thorough = post(client, GOOD)[0]
    with service(executor, tmp_path, device="cuda") as client:
        cuda = post(client, GOOD)[0]
    assert same["attempts"] == 0 and same["verdict"]["cached"]
    assert [i["attempts"] for i in (other_task, thorough, cuda)] == [1, 1, 1]
    assert [(t, p) for t, p, _ in executor.calls] == [
        ("level1/relu", "quick"), ("level1/sigmoid", "quick"), ("level1/relu", "thorough"),
        ("level1/relu", "quick")]
    assert cuda["verdict"]["device"] == "cuda"


def test_the_machines_limits_are_neither_stored_nor_answered_from_the_store(tmp_path):
    executor = KeyedExecutor()
    limits = [GOOD + f"# status: {s}\n" for s in ("timeout", "too_large", "needs_gpu")]
    task_source = (Path(__file__).parents[2] / "src/warpsmith/tasks/builtin/level1/relu.py")
    with service(executor, tmp_path) as client:
        first = post(client, *limits)
        # a timeout the CLI stored (the verifier stores them) is verified again here
        from warpsmith.tasks import load_task

        task = load_task(task_source, name="level1/relu", level="level1")
        env = environment("cpu")
        store = VerdictStore(tmp_path / "verdicts.sqlite")
        stored_timeout = GOOD + "# cli\n"
        store.put(Verdict("timeout", "level1/relu", "c.py", "cpu", environment=env,
                          cache_key=cache_key(task, stored_timeout, "cpu",
                                              get_profile("quick"), env)))
        count = store.count()
        store.close()
        again = post(client, *limits, stored_timeout)
    assert [i["status"] for i in first] == ["timeout", "too_large", "needs_gpu"]
    assert count == 1  # none of the three was stored
    assert [i["attempts"] for i in again] == [1, 1, 1, 1] and len(executor.calls) == 7


def test_verdicts_made_under_a_workers_environment_are_found_again(tmp_path):
    """A Ray worker on another machine keys by its own environment: the service learns it
    from the verdict (checking the key) and later finds the repeat in the store."""
    executor = KeyedExecutor(extra={"gpu": "NVIDIA H200", "cuda": "12.8"})
    with service(executor, tmp_path) as client:
        first = post(client, GOOD)[0]
        again = post(client, GOOD)[0]
    assert (first["attempts"], again["attempts"], again["verdict"]["cached"]) == (1, 0, True)
    assert again["verdict"]["environment"]["gpu"] == "NVIDIA H200"


class RealGated(InlineExecutor):
    """The real verifier, held at a gate for a candidate marked `# gate`."""

    def __init__(self):
        super().__init__()
        self.gate, self.started = threading.Event(), threading.Event()

    def verify(self, task, candidate, **kwargs):
        if "# gate" in Path(candidate).read_text():
            self.started.set()
            assert self.gate.wait(120)
        return super().verify(task, candidate, **kwargs)


@pytest.mark.slow
def test_with_the_real_verifier_a_stored_candidate_does_not_queue(tmp_path):
    """The key the service looks up is the one the real verifier stores under."""
    executor = RealGated()
    with service(executor, tmp_path, device="cpu", per_client=8) as client:
        verified = post(client, GOOD)[0]
        slow, fresh = in_thread(lambda: post(client, GOOD + "# gate\n"))
        assert executor.started.wait(60)
        start = time.monotonic()
        again = post(client, GOOD, timeout=30)[0]
        seconds = time.monotonic() - start
        still_verifying = slow.is_alive()
        executor.gate.set()
        slow.join(300)
    assert verified["status"] == "passed" and verified["attempts"] == 1
    assert still_verifying and again["attempts"] == 0 and again["verdict"]["cached"]
    assert again["verdict"]["cache_key"] == verified["verdict"]["cache_key"]
    assert seconds < 10, seconds  # generous: it is a SQLite read on a loaded 2-core machine
    assert fresh["r"][0]["status"] == "passed"
