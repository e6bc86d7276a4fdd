"""The local executor with real worker processes on the CPU (the Triton interpreter): two
workers at once, a worker killed mid-job (the job runs again), killed twice (a `crashed`
verdict), and the --executor option of bench and optimize."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
import torch
from click.testing import CliRunner

from warpsmith.cli.main import cli
from warpsmith.errors import UsageError
from warpsmith.executors import InlineExecutor, check_spec, make_executor, spec_of
from warpsmith.executors.local import WORKER_TAG, LocalExecutor
from warpsmith.store.runs import RunStore
from warpsmith.tasks.suite import resolve_task

from .procs import BAD, GOOD, children, environ, wait_for_child


@pytest.fixture(scope="module")
def relu():
    return resolve_task("level1/relu")


def in_thread(fn):
    """Run fn on a thread; the returned dict gets its result under "value"."""
    box = {}
    thread = threading.Thread(target=lambda: box.update(value=fn()))
    thread.start()
    box["thread"] = thread
    return box


def test_make_executor_forms():
    assert isinstance(make_executor(None), InlineExecutor)
    assert isinstance(make_executor("inline"), InlineExecutor)
    for bad in ("gpu", "ray://", "local:0", "local:x", "local:", "local:100"):
        with pytest.raises(UsageError, match=r"inline, local, local:N, ray, ray://ADDRESS"):
            make_executor(bad)
    assert check_spec(" local:1 ") == "local" and check_spec("local:3") == "local:3"


def test_local_n_runs_n_workers_and_records_its_spec(relu):
    """`local:N` on a machine without a GPU: N CPU workers, recorded as given so a resumed
    bench runs as many."""
    executor = make_executor("local:3")
    try:
        assert executor.slots == 3 and len(set(executor.pids())) == 3
        assert spec_of(executor) == "local:3"
    finally:
        executor.close()


def test_two_workers_verify_at_once_and_share_the_store(relu, tmp_path):
    sigmoid = resolve_task("level1/sigmoid")
    store = tmp_path / "store.sqlite"
    executor = LocalExecutor(workers=2)
    try:
        assert executor.slots == 2 and executor.default_device == "cpu"
        jobs = [in_thread(lambda t=t, c=c: executor.verify(t, c, device="cpu",
                                                           store_path=store))
                for t, c in ((relu, GOOD / "relu_triton.py"),
                             (sigmoid, GOOD / "sigmoid_triton.py"))]
        busy_together = False
        while any(j["thread"].is_alive() for j in jobs):
            busy_together |= all(children(pid) for pid in executor.pids())
            time.sleep(0.05)
        assert busy_together  # both workers had a candidate process running at one moment
        assert [j["value"].status for j in jobs] == ["passed", "passed"]
        assert jobs[0]["value"].candidate == str(GOOD / "relu_triton.py")
        again = executor.verify(relu, GOOD / "relu_triton.py", device="cpu", store_path=store)
        assert again.cached and again.status == "passed"  # the workers wrote the store
    finally:
        executor.close()
    assert not any(os.path.exists(f"/proc/{pid}") and children(pid) for pid in executor.pids())


def test_a_worker_killed_mid_job_is_replaced_and_the_job_runs_again(relu):
    executor = LocalExecutor(workers=1)
    try:
        (first,) = executor.pids()
        job = in_thread(lambda: executor.verify(relu, GOOD / "relu_triton.py", device="cpu"))
        orphan = wait_for_child(first)
        os.kill(first, signal.SIGKILL)
        job["thread"].join(300)
        verdict = job["value"]
        assert verdict.status == "passed" and verdict.correct, verdict.feedback
        (second,) = executor.pids()
        assert second != first and os.path.exists(f"/proc/{second}")
        assert not os.path.exists(f"/proc/{orphan}")  # the dead worker's candidate was killed
    finally:
        executor.close()


def test_a_worker_killed_twice_gives_a_crashed_verdict(relu):
    executor = LocalExecutor(workers=1)
    try:
        job = in_thread(lambda: executor.verify(relu, GOOD / "relu_triton.py", device="cpu"))
        for _ in range(2):
            (pid,) = executor.pids()
            wait_for_child(pid)
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 60
            while executor.pids() == [pid] and time.monotonic() < deadline:
                time.sleep(0.05)  # until the executor has noticed and started another
        job["thread"].join(300)
        verdict = job["value"]
        assert verdict.status == "crashed" and not verdict.correct
        assert "worker died" in verdict.reasons[0] and "SIGKILL" in verdict.reasons[0]
        assert verdict.cache_key == "" and verdict.feedback.startswith("Status: crashed")
        (fresh,) = executor.pids()  # the pool is whole again for the next job
        assert os.path.exists(f"/proc/{fresh}")
    finally:
        executor.close()


def make_suite(root, kernels: dict) -> tuple:
    """A folder suite of built-in level-1 tasks and a folder with a kernel for each."""
    suite, folder = root / "suite" / "level1", root / "kernels"
    suite.mkdir(parents=True)
    folder.mkdir()
    for name, kernel in kernels.items():
        shutil.copy(resolve_task(f"level1/{name}").path, suite / f"{name}.py")
        shutil.copy(kernel, folder / f"{name}.py")
    return suite.parent, folder


def test_bench_and_optimize_take_executor_and_store_it(tmp_path, monkeypatch):
    suite, kernels = make_suite(tmp_path, {"relu": GOOD / "relu_triton.py",
                                           "softmax": BAD / "incorrect_wrong_math.py"})
    db = tmp_path / "store.sqlite"
    monkeypatch.setenv("WARPSMITH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("WARPSMITH_DB", str(db))
    run = CliRunner().invoke(cli, ["bench", str(suite), "--generator", f"dir:{kernels}",
                                   "--device", "cpu", "--executor", "local", "--json"])
    assert run.exit_code == 0, run.output
    report = json.loads(run.stdout)
    assert {r["title"]: r["status"] for r in report["tasks"]} == {
        "level1/relu": "passed", "level1/softmax": "incorrect"}
    from warpsmith.bench import BenchStore

    assert BenchStore(db).bench(report["bench"]["id"]).settings["executor"] == "local"

    out = tmp_path / "relu_best.py"
    run = CliRunner().invoke(cli, ["optimize", "level1/relu", "--device", "cpu", "--executor",
                                   "local", "--out", str(out), "--json"])
    assert run.exit_code == 0, run.output
    result = json.loads(run.stdout)
    assert result["verdict"]["status"] == "passed" and out.exists()
    assert RunStore(db).run(result["run_id"]).settings["executor"] == "local"

    bad = CliRunner().invoke(cli, ["optimize", "level1/relu", "--executor", "gpus"])
    assert isinstance(bad.exception, UsageError) and "valid forms" in str(bad.exception)


def test_ctrl_c_leaves_a_resumable_bench_and_no_worker(tmp_path):
    suite, kernels = make_suite(tmp_path, {"relu": GOOD / "relu_triton.py",
                                           "sigmoid": GOOD / "sigmoid_triton.py",
                                           "silu": GOOD / "silu_triton.py",
                                           "leaky_relu": GOOD / "leaky_relu_triton.py"})
    db = tmp_path / "store.sqlite"
    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"), WARPSMITH_DB=str(db))
    command = [sys.executable, "-m", "warpsmith.cli.main", "bench"]
    proc = subprocess.Popen(command + [str(suite), "--generator", f"dir:{kernels}", "--device",
                                       "cpu", "--executor", "local"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    deadline = time.monotonic() + 300
    while not committed(db) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "--resume" in stderr, stderr
    bench_id = stderr.split("--resume")[-1].split()[0]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM benches").fetchall() == [("interrupted",)]
    assert not tagged_processes()  # the workers and their candidates went with the bench
    again = subprocess.run(command + ["--resume", bench_id, "--json"], env=env,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert {r["status"] for r in json.loads(again.stdout)["tasks"]} == {"passed"}


def default_sigint() -> None:
    """A test run in the background inherits SIGINT ignored; the bench must see Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def committed(db) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT COUNT(*) FROM bench_items").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def tagged_processes() -> list[int]:
    """Live processes started by a local executor's worker (Ray actors tag theirs ray-PID)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            tag = environ(int(entry)).get(WORKER_TAG)
        except OSError:
            continue
        if tag and not tag.startswith("ray-"):
            found.append(int(entry))
    return found


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_one_worker_per_gpu_each_seeing_only_its_own(relu):
    executor = LocalExecutor()
    try:
        assert executor.slots == torch.cuda.device_count()
        assert executor.default_device == "cuda"
        seen = [environ(pid)["CUDA_VISIBLE_DEVICES"] for pid in executor.pids()]
        assert len(set(seen)) == len(seen) and all("," not in s and s for s in seen)
        assert all(WORKER_TAG in environ(pid) for pid in executor.pids())
        jobs = [in_thread(lambda: executor.verify(relu, GOOD / "relu_triton.py"))
                for _ in range(executor.slots)]
        for job in jobs:
            job["thread"].join(900)
            verdict = job["value"]
            assert verdict.status == "passed" and verdict.device == "cuda", verdict.feedback
            assert verdict.timing_measured
    finally:
        executor.close()


def test_a_lent_worker_takes_no_job_until_it_is_given_back(relu):
    """The tuner's ranking and the judge's profiler borrow a GPU this way: no verification
    may be timed on it meanwhile."""
    executor = LocalExecutor(workers=1)
    try:
        with executor.lend_gpu() as visible:
            assert visible is None  # a CPU worker: no GPU to name
            job = in_thread(lambda: executor.verify(relu, GOOD / "relu_triton.py",
                                                    device="cpu"))
            time.sleep(1.0)
            assert job["thread"].is_alive() and not children(executor.pids()[0])
        job["thread"].join(timeout=120)
        assert job["value"].status == "passed"
    finally:
        executor.close()


def test_a_job_carries_the_folders_hidden_here_to_its_worker(relu, tmp_path, monkeypatch):
    """A store given by --db is hidden from candidates by the process that was given it; a
    worker process (local, Ray) hides it too, from what the job says."""
    from warpsmith.executors.jobs import make_job, run_job
    from warpsmith.verify.isolation import jail

    kept, stores = tmp_path / "kept", tmp_path / "stores"
    kept.mkdir()
    stores.mkdir()
    monkeypatch.setattr(jail, "_hidden_extra", set())
    jail.hide(kept)
    job = make_job(relu, GOOD / "relu_triton.py", "cpu", "quick",
                   store_path=stores / "db.sqlite")
    assert set(job["hide"]) == {str(kept.resolve()), str(stores.resolve())}

    monkeypatch.setattr(jail, "_hidden_extra", set())  # the worker's process: nothing yet
    answer = run_job(job)
    assert answer["verdict"]["status"] == "passed", answer
    assert {str(kept.resolve()), str(stores.resolve())} <= set(jail._hidden())


class _StubWorker:
    """A worker that answers after `busy` seconds, without a process; `ran` says where."""

    busy, ran = 0.0, []

    def __init__(self, visible, shared=False):
        self.visible, self.pid, self.shared = visible, 0, shared

    def ask(self, job, deadline_s):
        _StubWorker.ran.append((self.visible, time.perf_counter()))
        time.sleep(self.busy)
        return {"answer": self.visible}, ""

    def hang_up(self):
        pass

    def stop(self, grace_s=5.0):
        pass


def test_a_gpu_is_lent_only_once_none_of_its_workers_verifies(monkeypatch, relu):
    """`local:2`: lending a GPU waits for both of its verifications to end, and none of its
    workers takes a job while it is lent; the other GPU's workers go on."""
    from warpsmith.executors import local

    monkeypatch.setattr(local, "visible_gpus", lambda: ["0", "1"])
    monkeypatch.setattr(local, "_Worker", _StubWorker)
    monkeypatch.setattr(local, "verdict_of", lambda answer, candidate: answer)
    monkeypatch.setattr(_StubWorker, "busy", 1.0)
    monkeypatch.setattr(_StubWorker, "ran", [])
    executor = local.LocalExecutor(per_gpu=2)
    assert executor.slots == 4 and executor.default_device == "cuda"
    verify = lambda: executor.verify(relu, GOOD / "relu_triton.py")  # noqa: E731
    jobs = [in_thread(verify) for _ in range(4)]
    time.sleep(0.2)
    start = time.perf_counter()
    with executor.lend_gpu() as gpu:
        lent_at = time.perf_counter()
        more = [in_thread(verify) for _ in range(4)]
        time.sleep(1.5)
        back_at = time.perf_counter()
    for job in [*jobs, *more]:
        job["thread"].join(30)
    executor.close()
    assert lent_at - start > 0.5  # both of its verifications (1 s each) had to end
    on_it = [t for visible, t in _StubWorker.ran if visible == gpu]
    assert len(_StubWorker.ran) == 8 and not [t for t in on_it if lent_at <= t < back_at]
