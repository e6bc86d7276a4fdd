"""`optimize` end to end on the CPU interpreter, with the official OpenAI SDK talking to a real
HTTP server on loopback that answers from a script: a broken kernel, then a fixed one."""

import json
import os
import subprocess
import sys
from importlib.resources import files

import pytest

from warpsmith.llm import ProviderSettings, RetryPolicy
from warpsmith.search import Settings, optimize, parse_budget, resume
from warpsmith.store.runs import RunStore

from ..llm.server import Reply
from .conftest import model

FIXED = (files("warpsmith.examples") / "relu_triton.py").read_text()
BROKEN = FIXED.replace("tl.maximum(x, 0.0)", "x")  # forgets the relu: incorrect on negatives
FAST = ProviderSettings(timeout_s=5.0, cache=False,
                        retry=RetryPolicy(max_retries=1, backoff_s=0.01, backoff_max_s=0.02))
CPU = Settings(device="cpu", samples=1, depth=3)


def answer(code: str) -> Reply:
    return Reply(text=f"Here is the kernel.\n\n```python\n{code}\n```\nIt should be fast.")


def test_broken_kernel_is_fixed_after_the_verdict_is_fed_back(server, db):
    assert BROKEN != FIXED
    server.script(answer(BROKEN), answer(FIXED))
    result = optimize("level1/relu", model(server), "refine", CPU, db=db,
                      provider_settings=FAST, out=db.parent / "best.py")
    assert result.status == "found" and result.best.passed
    assert result.best_path.read_text().endswith(FIXED)
    assert len(server.requests) == 2
    second = server.requests[1]["messages"][-1]["content"]
    assert "incorrect" in second and "return x" not in FIXED and BROKEN.strip()[:40] in second
    first, fixed = RunStore(db).attempts(result.run_id)
    assert first.status == "incorrect" and fixed.parent_id == first.id


def test_budget_stops_the_run_at_its_limit(server, db):
    server.script(*[answer(BROKEN)] * 5)
    result = optimize("level1/relu", model(server), "refine", CPU, parse_budget("calls=2"),
                      db=db, provider_settings=FAST)
    assert result.stopped_by == "calls" and result.status == "not_found"
    assert len(server.requests) == 2 and result.best_path is None


def test_resume_replays_recorded_attempts_without_calling_again(server, db):
    server.script(answer(BROKEN), answer(FIXED))
    first = optimize("level1/relu", model(server), "refine", CPU, parse_budget("calls=1"),
                     db=db, provider_settings=FAST)
    assert first.status == "not_found" and len(server.requests) == 1
    again = resume(first.run_id, db=db, provider_settings=FAST, budget=parse_budget("calls=5"))
    assert again.run_id == first.run_id and again.status == "found"
    assert len(server.requests) == 2  # the first answer came from the store, not the server
    assert [a.status for a in RunStore(db).attempts(first.run_id)] == ["incorrect", "passed"]


def test_answer_without_code_is_fed_back_as_such(server, db):
    server.script(Reply(text="I would use a Triton kernel with a block size of 1024."),
                  answer(FIXED))
    result = optimize("level1/relu", model(server), "refine", CPU, db=db,
                      provider_settings=FAST)
    assert result.status == "found"
    assert "no code" in server.requests[1]["messages"][-1]["content"]


def test_server_errors_and_malformed_bodies_are_recorded_not_raised(server, db):
    server.script(Reply(status=500), Reply(status=500), Reply(raw=b"{not json"),
                  Reply(raw=b"{not json"))
    result = optimize("level1/relu", model(server), "best-of-n",
                      Settings(device="cpu", samples=2), db=db, provider_settings=FAST)
    attempts = RunStore(db).attempts(result.run_id)
    assert result.status == "not_found" and len(attempts) == 2
    assert all(a.status == "llm_error" and a.error for a in attempts)


def test_best_of_n_keeps_the_verified_sample(server, db):
    server.script(answer(BROKEN), answer(FIXED), answer(BROKEN))
    result = optimize("level1/relu", model(server), "best-of-n",
                      Settings(device="cpu", samples=3), db=db, provider_settings=FAST)
    assert result.status == "found" and len(server.requests) == 3
    assert sorted(a.sample for a in RunStore(db).attempts(result.run_id)) == [0, 1, 2]


def test_command_line_run_then_runs_show(server, tmp_path):
    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"),
               WARPSMITH_DB=str(tmp_path / "store.sqlite"))
    server.script(answer(BROKEN), answer(FIXED))
    out = tmp_path / "relu_best.py"
    run = subprocess.run([sys.executable, "-m", "warpsmith.cli.main", "optimize", "level1/relu",
                          "--model", model(server), "--strategy", "refine", "--samples", "1",
                          "--device", "cpu", "--budget", "calls=4,usd=1", "--out", str(out),
                          "--json"], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["status"] == "found" and result["best_candidate"] == str(out)
    assert result["verdict"]["status"] == "passed" and out.exists()
    shown = subprocess.run([sys.executable, "-m", "warpsmith.cli.main", "runs", "show",
                            result["run_id"], "--json"], env=env, capture_output=True,
                           text=True, timeout=120)
    record = json.loads(shown.stdout)
    assert record["attempts"][1]["parent_id"] == record["attempts"][0]["id"]
    assert record["tokens"] == 3000 and record["status"] == "found"
    listed = subprocess.run([sys.executable, "-m", "warpsmith.cli.main", "runs", "list"],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result["run_id"] in listed.stdout


def test_ctrl_c_leaves_an_interrupted_run_that_resumes_without_paying_twice(server, tmp_path):
    import signal
    import time

    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"),
               WARPSMITH_DB=str(tmp_path / "store.sqlite"))
    slow = answer(FIXED)
    slow.delay_s = 4.0
    server.script(slow)
    args = [sys.executable, "-m", "warpsmith.cli.main", "optimize", "level1/relu", "--model",
            model(server), "--samples", "1", "--device", "cpu"]
    # SIG_DFL: a test run started in the background inherits SIGINT ignored
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while not server.requests:  # the call is out
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "--resume" in stderr, stderr
    run_id = stderr.split("--resume")[-1].split()[0]
    assert RunStore(tmp_path / "store.sqlite").run(run_id).status == "interrupted"
    again = subprocess.run([sys.executable, "-m", "warpsmith.cli.main", "optimize", "--resume",
                            run_id, "--json"], env=env, capture_output=True, text=True,
                           timeout=600, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["status"] == "found"
    assert len(server.requests) == 1  # the answer that came in after Ctrl-C was cached
    # one count of the run's calls in the progress lines, the summary and `runs show`
    spent = json.loads(again.stdout)["spend"]["calls"]
    shown = subprocess.run([sys.executable, "-m", "warpsmith.cli.main", "runs", "show", run_id,
                            "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert json.loads(shown.stdout)["llm_calls"] == spent
    replay = subprocess.run([sys.executable, "-m", "warpsmith.cli.main", "optimize", "--resume",
                             run_id], env=env, capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    progress = [line for line in replay.stderr.splitlines() if line.startswith("#")]
    assert progress and all((f"calls {spent}," in line) if spent else ("calls" not in line)
                            for line in progress[-1:]), replay.stderr
    assert (f"{spent} LLM calls" if spent else "no model calls") in replay.stderr


def test_without_a_model_the_library_finds_a_verified_kernel(db):
    from warpsmith.search.registry import LIBRARY

    result = optimize("level1/softmax", LIBRARY, LIBRARY, CPU, db=db)
    assert result.status == "found" and result.best.verdict.passed
    assert result.spend["calls"] == 0 and result.best_path.exists()
    assert "not tuned" in result.note  # nothing is timed on the CPU
    uncovered = optimize("models/dequant_int4_linear", LIBRARY, LIBRARY, CPU, db=db)
    assert uncovered.status == "not_found" and "does not cover" in uncovered.note


def test_bad_task_or_model_fails_before_a_run_is_recorded(db):
    from warpsmith.errors import UsageError

    for task, spec in (("level1/nope", "library"), ("level1/relu", "foo:bar")):
        with pytest.raises(UsageError):
            optimize(task, spec, "library" if spec == "library" else "refine", CPU, db=db)
    assert RunStore(db).runs() == []
