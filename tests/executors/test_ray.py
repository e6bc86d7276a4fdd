"""The Ray executor on a real local Ray instance (2 CPUs, so 2 CPU actors), and the rule every
executor keeps: a bench gives the same verdicts inline, on local workers and on Ray."""

import os
import shutil
import signal
import sys
import threading
import time

import pytest
import ray

from warpsmith.bench import BenchSettings, BenchStore, bench
from warpsmith.errors import UsageError
from warpsmith.executors import make_executor
from warpsmith.executors.local import WORKER_TAG, LocalExecutor
from warpsmith.executors.ray import RayExecutor
from warpsmith.tasks.suite import resolve_task
from warpsmith.types import readable_task_name

from .procs import BAD, GOOD, environ

EXPECTED = {"level1/relu": "passed", "level1/sigmoid": "passed",
            "level1/softmax": "incorrect"}


@pytest.fixture(scope="module")
def cluster():
    """One Ray instance for the module: starting one takes several seconds."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def executor(cluster):
    made = RayExecutor(None)
    yield made
    made.close()


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    base = tmp_path_factory.mktemp("suite")
    (base / "tasks" / "level1").mkdir(parents=True)
    (base / "kernels").mkdir()
    for name, kernel in (("relu", GOOD / "relu_triton.py"),
                         ("sigmoid", GOOD / "sigmoid_triton.py"),
                         ("softmax", BAD / "incorrect_wrong_math.py")):
        shutil.copy(resolve_task(f"level1/{name}").path, base / "tasks" / "level1" / f"{name}.py")
        shutil.copy(kernel, base / "kernels" / f"{name}.py")
    return base / "tasks", base / "kernels"


def busy_actor(skip: set[int], timeout_s: float = 300) -> int:
    """The pid of a live actor that is verifying: its candidate's process carries the tag
    `ray-PID` the actor set (executors/ray.py)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                tag = environ(int(entry)).get(WORKER_TAG, "")
            except OSError:
                continue
            owner = int(tag[4:]) if tag.startswith("ray-") else None
            if owner and owner not in skip and os.path.exists(f"/proc/{owner}"):
                return owner
        time.sleep(0.05)
    raise AssertionError("no actor started a verification")


def test_one_cpu_actor_per_cpu(executor):
    assert executor.slots == 2 and executor.default_device == "cpu" and executor.spec == "ray"


def test_verdicts_go_to_the_callers_store(executor, tmp_path):
    store = tmp_path / "store.sqlite"
    relu = resolve_task("level1/relu")
    first = executor.verify(relu, GOOD / "relu_triton.py", device="cpu", store_path=store)
    assert first.status == "passed" and not first.cached
    assert first.candidate == str(GOOD / "relu_triton.py")  # ours, not the actor's copy
    again = executor.verify(relu, GOOD / "relu_triton.py", device="cpu", store_path=store)
    assert again.cached and again.cache_key == first.cache_key  # no actor was asked


def test_an_actor_killed_mid_job_is_replaced_and_the_job_runs_again(executor):
    relu = resolve_task("level1/relu")
    box = {}
    thread = threading.Thread(target=lambda: box.update(v=executor.verify(
        relu, GOOD / "relu_triton.py", device="cpu")))
    thread.start()
    os.kill(busy_actor(set()), signal.SIGKILL)
    thread.join(600)
    assert box["v"].status == "passed", box["v"].feedback


def test_an_actor_killed_twice_gives_a_crashed_verdict(executor):
    sigmoid = resolve_task("level1/sigmoid")
    box = {}
    thread = threading.Thread(target=lambda: box.update(v=executor.verify(
        sigmoid, GOOD / "sigmoid_triton.py", device="cpu")))
    thread.start()
    killed: set[int] = set()
    for _ in range(2):
        pid = busy_actor(killed)
        os.kill(pid, signal.SIGKILL)
        killed.add(pid)
    thread.join(600)
    verdict = box["v"]
    assert verdict.status == "crashed" and "worker died" in verdict.reasons[0]
    assert executor.verify(sigmoid, GOOD / "sigmoid_triton.py", device="cpu").passed  # whole


def test_bench_verdicts_agree_across_executors(executor, suite, tmp_path, monkeypatch):
    tasks, kernels = suite
    monkeypatch.setenv("WARPSMITH_HOME", str(tmp_path / "home"))
    local = LocalExecutor(workers=2)
    found, seen = {}, {}
    try:
        for name, chosen in (("inline", None), ("local", local), ("ray", executor)):
            db = tmp_path / f"{name}.sqlite"  # a store each: no verdict comes from the cache
            seen[name] = []
            result = bench(tasks, f"dir:{kernels}", BenchSettings(device="cpu"), db=db,
                           executor=chosen, on_progress=seen[name].append)
            assert result.status == "finished"
            ends = [p for p in seen[name] if p.last is not None]
            assert [p.done for p in ends] == [1, 2, 3] and ends[-1].eta_s == 0
            assert sorted(p.current for p in seen[name] if p.current) == [
                "level1/relu #0", "level1/sigmoid #0", "level1/softmax #0"]
            store = BenchStore(db)
            assert store.bench(result.bench_id).settings["executor"] == name
            found[name] = {i.task: (i.status, i.verdict.correct, i.verdict.shapes_checked,
                                    # the order and number of checked calls are secret,
                                    # per run: the kinds of calls are not
                                    sorted({(c.shape, c.variant, c.ok)
                                            for c in i.verdict.cases}))
                           for i in store.items(result.bench_id)}
            store.close()
    finally:
        local.close()
    # a folder's tasks are stored as NAME@DIGEST; their titles are the names people read
    assert {readable_task_name(t): v[0] for t, v in found["inline"].items()} == EXPECTED
    assert found["inline"] == found["local"] == found["ray"]


def test_without_ray_the_executor_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # what an environment without Ray gives
    with pytest.raises(UsageError, match=r"pip install 'warpsmith\[ray\]'"):
        make_executor("ray://127.0.0.1:10001")
