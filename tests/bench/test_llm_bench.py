"""`bench` with an llm generator: warpsmith.search.optimize per (task, sample), against a
real HTTP server on loopback speaking the OpenAI protocol, verified on the CPU interpreter."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from importlib.resources import files

import pytest

from warpsmith.bench import BenchSettings, bench
from warpsmith.llm import ProviderSettings, RetryPolicy
from warpsmith.report import load_report
from warpsmith.search import parse_budget
from warpsmith.store.runs import RunStore

from ..llm.server import Reply
from .conftest import make_suite

FIXED = (files("warpsmith.examples") / "relu_triton.py").read_text()
BROKEN = FIXED.replace("tl.maximum(x, 0.0)", "x")
FAST = ProviderSettings(timeout_s=10.0, retry=RetryPolicy(max_retries=1, backoff_s=0.01,
                                                          backoff_max_s=0.02))
CALL_USD = (1000 * 1.0 + 500 * 2.0) / 1e6  # the loopback's usage at the prices below


def answer(code: str) -> Reply:
    return Reply(text=f"Here it is.\n\n```python\n{code}\n```")


@pytest.fixture
def home(tmp_path, monkeypatch):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"loopback-coder": {"input": 1.0, "output": 2.0}}))
    monkeypatch.setenv("WARPSMITH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("WARPSMITH_PRICES", str(prices))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def generator(server, strategy="one-shot") -> str:
    return f"llm:{strategy}:openai-compatible:{server.url}/v1#loopback-coder"


def test_llm_bench_over_two_tasks_with_the_budget_split(server, home):
    suite = make_suite(home / "suite", "relu", "sigmoid")
    server.script(answer(FIXED), answer(FIXED))  # the relu kernel is wrong for sigmoid
    seen = []
    result = bench(suite, generator(server), BenchSettings(device="cpu",
                   budget=parse_budget("calls=2")), db=home / "s.sqlite",
                   provider_settings=FAST, on_progress=seen.append)
    assert result.status == "finished" and len(server.requests) == 2
    report = load_report(result.bench_id, home / "s.sqlite")
    rows = {r["title"]: r for r in report["tasks"]}
    assert rows["level1/relu"]["status"] == "passed"
    assert rows["level1/sigmoid"]["status"] == "incorrect"
    assert rows["level1/relu"]["candidate"].endswith("level1_relu_s0.py")
    runs = RunStore(home / "s.sqlite").runs()
    assert {r.id for r in runs} == {r["run_id"] for r in report["tasks"]}
    assert all(r.settings["budget"]["calls"] == 1 for r in runs)  # each task's share
    overall = report["metrics"]["overall"]
    assert overall["cost_per_task_usd"] == pytest.approx(CALL_USD)
    assert overall["correctness_rate"] == 0.5
    last = seen[-1]
    assert last.spent_usd == pytest.approx(2 * CALL_USD) and last.eta_usd == 0


def test_samples_are_independent_draws_and_the_best_is_chosen(server, home):
    suite = make_suite(home / "suite", "relu")
    server.script(answer(BROKEN), answer(FIXED))
    settings = BenchSettings(samples=2, device="cpu")
    first = bench(suite, generator(server), settings, db=home / "s.sqlite",
                  provider_settings=FAST)
    (row,) = load_report(first.bench_id, home / "s.sqlite")["tasks"]
    assert row["statuses"] == ["incorrect", "passed"] and row["sample"] == 1
    assert len(server.requests) == 2  # sample 1 was not sample 0's cached answer
    again = bench(suite, generator(server), settings, db=home / "s.sqlite",
                  provider_settings=FAST)
    (row,) = load_report(again.bench_id, home / "s.sqlite")["tasks"]
    assert row["statuses"] == ["incorrect", "passed"] and len(server.requests) == 2
    assert row["cost_usd"] == 0  # both answers came from the response cache


def test_an_item_killed_mid_search_resumes_that_search(server, home):
    suite = make_suite(home / "suite", "relu")
    db = home / "s.sqlite"
    slow = answer(FIXED)
    slow.delay_s = 30.0
    server.script(slow, answer(FIXED))
    env = dict(os.environ, WARPSMITH_DB=str(db))
    args = [sys.executable, "-m", "warpsmith.cli.main", "bench"]
    proc = subprocess.Popen(args + [str(suite), "--generator", generator(server), "--device",
                                    "cpu"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not server.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db) as conn:
        (bench_id, run_id), = conn.execute("SELECT bench_id, run_id FROM bench_pending")
    again = subprocess.run(args + ["--resume", bench_id, "--json"], env=env,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    (row,) = json.loads(again.stdout)["tasks"]
    assert row["status"] == "passed" and row["run_id"] == run_id  # the same search, resumed
    assert len(RunStore(db).runs()) == 1
