"""The reward service on a real uvicorn server on loopback, with httpx as the client.

Most tests use small executors written here (they follow warpsmith.executors.Executor): one
that waits for a signal, one that fails on purpose, one that records what it was given. The
two marked slow run the real verifier on the CPU interpreter."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from warpsmith.executors import InlineExecutor
from warpsmith.serve.reward import RewardSettings, create_app, serve_in_thread
from warpsmith.store import VerdictStore
from warpsmith.types import CaseResult, Verdict

KERNELS = Path(__file__).parent.parent / "kernels"
GOOD = (KERNELS / "good" / "relu_triton.py").read_text()
TOKEN = "test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

# Loads from address 0 inside the kernel: the candidate's process dies of SIGSEGV mid-call,
# using only what the static scan allows (the corpus's crash files import os and are rejected).
# Reads below the input's address (a segfault, `crashed`, until the interpreter's accesses
# were checked: now `runtime_error`, named, the same every run: verify/child/bounds.py)
OUT_OF_BOUNDS = GOOD.replace("x = tl.load(x_ptr + offsets, mask=mask)",
                        "x = tl.load(x_ptr - delta + offsets, mask=mask)").replace(
    "def relu_kernel(x_ptr, out_ptr, n, BLOCK", "def relu_kernel(x_ptr, out_ptr, n, delta, BLOCK"
).replace("](x, out, n, BLOCK=256)", "](x, out, n, x.data_ptr() // 4, BLOCK=256)")


def passed(task, candidate) -> Verdict:
    return Verdict(status="passed", task=task.name, candidate=str(candidate), device="cpu",
                   correct=True)


class GatedExecutor:
    """Holds every verification until `gate` is set, so requests stay in flight."""

    slots = 1

    def __init__(self):
        self.gate, self.started = threading.Event(), threading.Event()

    def verify(self, task, candidate, device=None, profile="quick", store_path=None):
        self.started.set()
        assert self.gate.wait(30)
        return passed(task, candidate)

    def close(self):
        pass


class FlakyExecutor:
    """Raises on its first `failures` calls for a candidate that contains "fails", as an
    executor whose worker died would."""

    slots = 1

    def __init__(self, failures: int):
        self.failures, self.sources = failures, []

    def verify(self, task, candidate, device=None, profile="quick", store_path=None):
        self.sources.append((task.name, Path(candidate).read_text()))
        if "fails" in Path(candidate).read_text() and self.failures > 0:
            self.failures -= 1
            raise ConnectionResetError("worker process exited (simulated)")
        return passed(task, candidate)

    def close(self):
        pass


@contextmanager
def service(executor, tmp_path, **settings):
    settings = {"token": TOKEN, "store_path": tmp_path / "verdicts.sqlite"} | settings
    app = create_app(RewardSettings(**settings), executor)
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


def body(*candidates, task="level1/relu", **extra) -> dict:
    return {"items": [{"task": task, "candidate": c} for c in candidates]} | extra


def test_openapi_lists_the_endpoints_and_health_needs_no_token(tmp_path):
    with service(InlineExecutor(), tmp_path) as client:
        paths = client.get("/openapi.json").json()["paths"]
        health = client.get("/health")
    assert {"/health", "/v1/verify"} <= set(paths)
    assert "post" in paths["/v1/verify"] and "401" in paths["/v1/verify"]["post"]["responses"]
    assert health.status_code == 200
    assert health.json() | {"version": None} == health.json() | {
        "status": "ok", "workers": 1, "queue_depth": 0, "in_flight": 0, "auth": True,
        "version": None}


def test_missing_or_wrong_token_is_401_before_the_body_is_judged(tmp_path):
    with service(InlineExecutor(), tmp_path) as client:
        missing = client.post("/v1/verify", json=body(GOOD))
        wrong = client.post("/v1/verify", json=body(GOOD), headers={"Authorization": "Bearer x"})
        malformed = client.post("/v1/verify", json={"items": "no"})
    assert missing.status_code == wrong.status_code == malformed.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"


def test_no_token_refuses_to_build_the_app_unless_no_auth(tmp_path):
    from warpsmith.errors import UsageError

    with pytest.raises(UsageError, match="needs a token"):
        create_app(RewardSettings(token=None), InlineExecutor())
    with service(FlakyExecutor(0), tmp_path, token=None, no_auth=True) as client:
        assert client.post("/v1/verify", json=body(GOOD)).json()["items"][0]["status"] == "passed"


def test_body_over_the_limit_is_413_whether_declared_or_streamed(tmp_path):
    big = json.dumps(body("#" * 5000)).encode()

    def chunks():
        for i in range(0, len(big), 1000):
            yield big[i:i + 1000]

    with service(FlakyExecutor(0), tmp_path, max_body_bytes=2000, max_items=2) as client:
        declared = client.post("/v1/verify", content=big, headers=AUTH)
        streamed = client.post("/v1/verify", content=chunks(), headers=AUTH)
        many = client.post("/v1/verify", json=body("a", "b", "c"), headers=AUTH)
        small = client.post("/v1/verify", json=body(GOOD[:500]), headers=AUTH)
    assert "content-length" not in streamed.request.headers  # it really was chunked
    assert declared.status_code == streamed.status_code == many.status_code == 413
    assert "2000-byte limit" in declared.json()["detail"]
    assert "at most 2" in many.json()["detail"]
    assert small.status_code == 200


def test_malformed_bodies_are_422_naming_the_problem(tmp_path):
    with service(FlakyExecutor(0), tmp_path) as client:
        no_candidate = client.post("/v1/verify", json={"items": [{"task": "level1/relu"}]},
                                   headers=AUTH)
        typo = client.post("/v1/verify", json=body(GOOD, reward={"baselin": "eager"}),
                           headers=AUTH)
        bad_clip = client.post("/v1/verify", json=body(GOOD, reward={"lo": 2, "hi": 1}),
                               headers=AUTH)
        not_json = client.post("/v1/verify", content=b"{items", headers=AUTH)
    assert {no_candidate.status_code, typo.status_code, bad_clip.status_code,
            not_json.status_code} == {422}
    assert no_candidate.json()["detail"][0]["loc"] == ["body", "items", 0]
    assert "exactly one of candidate" in no_candidate.json()["detail"][0]["msg"]
    assert typo.json()["detail"][0]["loc"][-1] == "baselin"
    assert "lo (2.0) is above hi (1.0)" in bad_clip.json()["detail"]


def test_a_second_concurrent_request_from_one_client_is_429(tmp_path):
    executor = GatedExecutor()
    with service(executor, tmp_path, per_client=1) as client:
        first = {}
        thread = threading.Thread(target=lambda: first.update(
            r=client.post("/v1/verify", json=body(GOOD), headers=AUTH)))
        thread.start()
        assert executor.started.wait(30)
        second = client.post("/v1/verify", json=body(GOOD), headers=AUTH)
        other = {}
        named = threading.Thread(target=lambda: other.update(r=client.post(  # not a twin
            "/v1/verify", json=body(GOOD + "# 2\n"),
            headers=AUTH | {"X-Client-Id": "trainer-2"})))
        named.start()
        deadline = time.monotonic() + 30  # another client's request waits in the queue
        while (depth := client.get("/health").json())["queue_depth"] == 0:
            assert named.is_alive() and time.monotonic() < deadline
            time.sleep(0.05)
        executor.gate.set()
        thread.join(30)
        named.join(30)
    assert second.status_code == 429 and second.headers["retry-after"] == "1"
    assert first["r"].status_code == 200 and other["r"].status_code == 200
    assert (depth["in_flight"], depth["queue_depth"]) == (1, 1)


def test_a_full_queue_is_503_for_the_whole_batch(tmp_path):
    with service(FlakyExecutor(0), tmp_path, max_queue=1) as client:
        r = client.post("/v1/verify", json=body(GOOD, GOOD + "# 2\n"), headers=AUTH)
        twins = client.post("/v1/verify", json=body(GOOD, GOOD), headers=AUTH)
    assert twins.status_code == 200  # one job for the two: it fits
    assert r.status_code == 503 and "queue is full" in r.json()["detail"]


def test_task_names_resolve_only_inside_suites_and_errors_stay_per_item(tmp_path):
    executor = FlakyExecutor(0)
    items = [{"task": t, "candidate": GOOD, "id": t} for t in
             ("level1/relu", "builtin/level1/relu.py", "level1/nope", "../../etc/hosts",
              str(KERNELS.parent.parent / "src/warpsmith/tasks/builtin/level1/relu.py"))]
    items.append({"task": {"source": "x = 1\n"}, "candidate": GOOD, "id": "source"})
    with service(executor, tmp_path) as client:
        got = {i["id"]: i for i in client.post("/v1/verify", json={"items": items},
                                               headers=AUTH).json()["items"]}
    assert got["level1/relu"]["status"] == got["builtin/level1/relu.py"]["status"] == "passed"
    assert got["level1/nope"]["status"] == "error" and got["level1/nope"]["reward"] is None
    assert "no task 'level1/nope'" in got["level1/nope"]["error"]
    assert "bad task name" in got["../../etc/hosts"]["error"]
    assert "bad task name" in got[items[4]["id"]]["error"]  # an absolute path is not a name
    assert "--allow-task-source" in got["source"]["error"]
    # the two names are one task and one candidate: verified once, both answered
    assert [name for name, _ in executor.sources] == ["level1/relu"]


def test_task_source_is_accepted_when_allowed(tmp_path):
    source = (KERNELS.parent.parent / "src/warpsmith/tasks/builtin/level1/relu.py").read_text()
    executor = FlakyExecutor(0)
    item = {"task": {"source": source, "name": "my/relu"}, "candidate": GOOD}
    broken = {"task": {"source": "class Model: pass\n"}, "candidate": GOOD}
    with service(executor, tmp_path, allow_task_source=True) as client:
        r = client.post("/v1/verify", json={"items": [item, broken]}, headers=AUTH).json()
    assert r["items"][0]["status"] == "passed" and r["items"][0]["task"] == "my/relu"
    assert "not a task" in r["items"][1]["error"]


def test_an_executor_failure_is_requeued_then_answered_as_crashed(tmp_path):
    executor = FlakyExecutor(failures=2)
    items = [{"task": "level1/relu", "candidate": "# fails\n" + GOOD, "id": "flaky"},
             {"task": "level1/relu", "candidate": GOOD, "id": "fine"}]
    with service(executor, tmp_path, retries=1) as client:
        r = client.post("/v1/verify", json={"items": items, "reward": {"incorrect": 0.1}},
                        headers=AUTH)
        again = client.post("/v1/verify", json={"items": items[:1]}, headers=AUTH)
    assert r.status_code == 200
    flaky, fine = r.json()["items"]
    assert (flaky["status"], flaky["attempts"], flaky["reward"]) == ("crashed", 2, 0.1)
    assert "failed 2 times" in flaky["error"] and "ConnectionResetError" in flaky["error"]
    assert "failed 2 times" in flaky["verdict"]["reasons"][0]
    assert (fine["status"], fine["attempts"], fine["reward"]) == ("passed", 1, 1.0)
    # its failures used up, the executor answers the same candidate the ordinary way
    assert again.json()["items"][0]["status"] == "passed"


def test_a_retry_that_succeeds_answers_with_the_verdict(tmp_path):
    executor = FlakyExecutor(failures=1)
    with service(executor, tmp_path, retries=1) as client:
        item = client.post("/v1/verify", json=body("# fails\n" + GOOD),
                           headers=AUTH).json()["items"][0]
    assert (item["status"], item["attempts"], item["error"]) == ("passed", 2, None)


class NonFiniteExecutor:
    """A verdict as an unwritten output leaves it: NaN and infinite errors and speedups."""

    slots = 1

    def verify(self, task, candidate, device=None, profile="quick", store_path=None):
        case = CaseResult("small", "base", False, max_abs=float("nan"), norm_rel=float("inf"))
        return Verdict(status="incorrect", task=task.name, candidate=str(candidate),
                       device="cpu", cases=(case,), speedup_vs_eager=float("nan"))

    def close(self):
        pass


def test_non_finite_numbers_in_a_verdict_come_back_as_null_not_a_500(tmp_path):
    with service(NonFiniteExecutor(), tmp_path) as client:
        r = client.post("/v1/verify", json=body(GOOD), headers=AUTH)
    assert r.status_code == 200
    item = r.json()["items"][0]
    assert item["verdict"]["cases"][0]["max_abs"] is None
    assert item["verdict"]["speedup_vs_eager"] is None and item["reward"] == 0.0


@pytest.mark.slow
def test_a_batch_of_good_wrong_crashing_and_rejected_candidates(tmp_path):
    """The real verifier, in this process (InlineExecutor), on the CPU interpreter."""
    candidates = {
        "good": GOOD,
        "wrong": (KERNELS / "good" / "sigmoid_triton.py").read_text(),  # sigmoid for relu
        "out_of_bounds": OUT_OF_BOUNDS,
        "syntax": (KERNELS / "bad" / "syntax_error.py").read_text(),
        "torch_only": (KERNELS / "redteam" / "E01_torch_only.py").read_text(),
    }
    request = {"items": [{"task": "level1/relu", "candidate": c, "id": k}
                         for k, c in candidates.items()],
               "reward": {"incorrect": 0.1, "rejected": -0.5}}
    with service(InlineExecutor(), tmp_path, device="cpu") as client:
        r = client.post("/v1/verify", json=request, headers=AUTH)
    assert r.status_code == 200
    got = {i["id"]: i for i in r.json()["items"]}
    assert {k: (v["status"], v["reward"]) for k, v in got.items()} == {
        "good": ("passed", 1.0), "wrong": ("incorrect", 0.1),
        "out_of_bounds": ("runtime_error", 0.1),
        "syntax": ("compile_error", 0.0), "torch_only": ("rejected", -0.5)}
    assert not got["good"]["timing_measured"]
    assert "timing not measured" in got["good"]["reward_parts"]["note"]
    assert got["good"]["verdict"]["correct"] and got["good"]["verdict"]["candidate"] == "good"
    assert "out-of-bounds load" in got["out_of_bounds"]["verdict"]["reasons"][0]
    assert got["out_of_bounds"]["error"] is None  # the verifier's own verdict, not ours
    store = VerdictStore(tmp_path / "verdicts.sqlite")
    assert store.count() == 5
    store.close()


@pytest.mark.slow
def test_a_worker_killed_mid_candidate_still_answers(tmp_path):
    """A LocalExecutor worker process is killed while it verifies; the item is run again on a
    fresh worker and the client gets the verdict, not an error."""
    from warpsmith.executors.local import LocalExecutor

    executor = LocalExecutor(workers=1)
    try:
        with service(executor, tmp_path, device="cpu") as client:
            answer = {}
            thread = threading.Thread(target=lambda: answer.update(
                r=client.post("/v1/verify", json=body(GOOD), headers=AUTH)))
            thread.start()
            deadline = time.monotonic() + 60
            while client.get("/health").json()["in_flight"] == 0:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            victim = executor.pids()[0]
            os.kill(victim, signal.SIGKILL)
            thread.join(180)
    finally:
        executor.close()
    assert executor.pids()[0] != victim
    item = answer["r"].json()["items"][0]
    assert (item["status"], item["reward"]) == ("passed", 1.0)


def cli(*args, **popen):
    cmd = [sys.executable, "-c", "from warpsmith.cli.main import main; main()", "serve",
           "reward", *args]
    env = {k: v for k, v in os.environ.items() if k != "WARPSMITH_REWARD_TOKEN"}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **popen)


def test_the_command_refuses_to_serve_without_a_token_or_off_loopback():
    no_token = cli().communicate(timeout=120)
    exposed = cli("--no-auth", "--host", "0.0.0.0").communicate(timeout=120)
    assert "give a token (--token or $WARPSMITH_REWARD_TOKEN)" in no_token[1]
    assert "--no-auth serves anyone who can reach 0.0.0.0" in exposed[1]
    assert "Traceback" not in no_token[1] + exposed[1]


def test_the_command_serves_health_and_stops_cleanly_on_sigterm(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = cli("--no-auth", "--port", str(port), "--db", str(tmp_path / "v.sqlite"))
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).json()
                break
            except httpx.TransportError:
                time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert health["auth"] is False and health["workers"] == 1
    # uvicorn re-raises the signal once its graceful shutdown is done, so -SIGTERM is clean
    assert proc.returncode in (0, -signal.SIGTERM) and "Application shutdown complete" in err
