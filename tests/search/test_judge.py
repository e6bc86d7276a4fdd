"""The coder–judge strategy end to end on the CPU interpreter, with the official OpenAI SDK
talking to a real HTTP server on loopback: the coder answers a broken kernel, the judge (the
same model) names one change after reading the verdict and the roofline fallback's metrics,
and the coder answers the fixed kernel. Plus reading the judge's change out of its answer."""

import dataclasses
import json
from pathlib import Path

import pytest

from warpsmith.errors import UsageError
from warpsmith.llm import ProviderSettings, RetryPolicy
from warpsmith.prompts.judge import Judgment, coder_prompt, parse_judgment
from warpsmith.search import Settings, optimize, parse_budget, resume
from warpsmith.search.judge import JUDGE, JUDGE_SAMPLE, metrics_source, metrics_used
from warpsmith.store.runs import RunStore
from warpsmith.tasks.suite import resolve_task

from ..llm.server import LoopbackLLM, Reply
from .conftest import model

KERNELS = Path(__file__).parents[1] / "kernels"
BROKEN = (KERNELS / "bad" / "incorrect_partial_write.py").read_text()  # drops the tail block
FIXED = (KERNELS / "good" / "relu_triton.py").read_text()
CHANGE = "Launch triton.cdiv(n, BLOCK) programs instead of n // 256 so the last partial " \
         "block is written too."
BOTTLENECK = "The tail of the output is never stored: the grid rounds down."
FAST = ProviderSettings(timeout_s=5.0, cache=False,
                        retry=RetryPolicy(max_retries=1, backoff_s=0.01, backoff_max_s=0.02))
CPU = Settings(device="cpu", samples=1, depth=3)


def coder(code: str) -> Reply:
    return Reply(text=f"Here is the kernel.\n\n```python\n{code}\n```")


def judged() -> Reply:
    verdict = json.dumps({"bottleneck": BOTTLENECK, "change": CHANGE}, indent=1)
    return Reply(text=f"<think>The grid is n // 256.</think>\n```json\n{verdict}\n```")


def user_text(request: dict) -> str:
    return request["messages"][-1]["content"]


def test_judge_reads_verdict_and_metrics_and_the_coder_gets_its_change(server, db):
    server.script(coder(BROKEN), judged(), coder(FIXED))
    result = optimize("level1/relu", model(server), "judge", CPU, db=db,
                      provider_settings=FAST)
    assert result.status == "found" and result.best.source.strip() == FIXED.strip()
    assert len(server.requests) == 3
    to_judge = server.requests[1]
    assert "judge" in to_judge["messages"][0]["content"]
    shown = user_text(to_judge)
    assert "Status: incorrect" in shown and "relu_kernel[(n // 256,)]" in shown
    assert "## Hardware metrics (source: roofline (fallback: no GPU))" in shown
    assert "memory-bound" in shown and "was not timed" in shown
    follow = user_text(server.requests[2])
    assert CHANGE in follow and BOTTLENECK in follow and "Status: incorrect" in follow
    first, verdict, fixed = RunStore(db).attempts(result.run_id)
    assert (first.status, verdict.status, fixed.status) == ("incorrect", JUDGE, "passed")
    assert verdict.sample == JUDGE_SAMPLE and verdict.source is None and verdict.verdict is None
    assert verdict.parent_id == first.id and fixed.parent_id == verdict.id  # coder→judge→coder
    assert metrics_source(verdict) == "roofline"
    assert metrics_used(verdict) == "roofline (fallback: no GPU)"
    assert result.spend["calls"] == 3 and result.spend["tokens"] == 3 * 1500
    assert result.attempts == 2  # two candidates; the judge's advice is a call, not a candidate


def test_a_separate_judge_model_gets_only_the_judge_call_and_survives_a_resume(server, db):
    judge_server = LoopbackLLM()
    try:
        server.script(coder(BROKEN), coder(FIXED))
        judge_server.script(judged())
        judge_model = f"openai-compatible:{judge_server.url}/v1#loopback-judge"
        settings = dataclasses.replace(CPU, judge_model=judge_model)
        first = optimize("level1/relu", model(server), "judge", settings,
                         parse_budget("calls=2"), db=db, provider_settings=FAST)
        assert len(server.requests) == 1 and len(judge_server.requests) == 1
        assert judge_server.requests[0]["model"] == "loopback-judge"
        assert "judge" in judge_server.requests[0]["messages"][0]["content"]
        result = resume(first.run_id, db, FAST, budget=parse_budget("calls=5"))
        assert result.status == "found" and len(judge_server.requests) == 1
        assert len(server.requests) == 2 and CHANGE in user_text(server.requests[1])
    finally:
        judge_server.close()


def test_judge_model_without_the_judge_strategy_is_refused(server, db):
    settings = dataclasses.replace(CPU, judge_model=model(server))
    with pytest.raises(UsageError, match="--strategy judge"):
        optimize("level1/relu", model(server), "refine", settings, db=db)
    assert not RunStore(db).runs()


def test_budget_counts_the_judges_calls(server, db):
    server.script(coder(BROKEN), judged(), coder(FIXED))
    result = optimize("level1/relu", model(server), "judge", CPU, parse_budget("calls=2"),
                      db=db, provider_settings=FAST)
    assert result.stopped_by == "calls" and result.status == "not_found"
    assert len(server.requests) == 2 and result.spend["calls"] == 2
    assert [a.status for a in RunStore(db).attempts(result.run_id)] == ["incorrect", JUDGE]


def test_resume_replays_the_judge_without_asking_again(server, db):
    server.script(coder(BROKEN), judged(), coder(FIXED))
    first = optimize("level1/relu", model(server), "judge", CPU, parse_budget("calls=2"),
                     db=db, provider_settings=FAST)
    assert first.status == "not_found" and len(server.requests) == 2
    again = resume(first.run_id, db=db, provider_settings=FAST, budget=parse_budget("calls=5"))
    assert again.status == "found" and len(server.requests) == 3
    assert CHANGE in user_text(server.requests[2])  # the advice came back from the store
    assert again.spend["calls"] == 3  # replayed calls count what they cost when made
    done = resume(first.run_id, db=db, provider_settings=FAST)
    assert done.status == "found" and len(server.requests) == 3  # all replayed, none asked
    assert len(RunStore(db).attempts(first.run_id)) == 3


def test_a_failed_judge_call_is_recorded_and_the_coder_goes_on_without_advice(server, db):
    server.script(coder(BROKEN), Reply(status=500), Reply(status=500), coder(FIXED))
    result = optimize("level1/relu", model(server), "judge", CPU, db=db,
                      provider_settings=FAST)
    assert result.status == "found" and len(server.requests) == 4
    verdict = RunStore(db).attempts(result.run_id)[1]
    assert verdict.status == JUDGE and verdict.error.startswith("server")
    follow = user_text(server.requests[3])
    assert "judge's advice" not in follow and "Status: incorrect" in follow


def test_last_round_is_not_judged(server, db):
    server.script(coder(BROKEN), judged(), coder(BROKEN))
    result = optimize("level1/relu", model(server), "judge",
                      Settings(device="cpu", samples=1, depth=2), db=db,
                      provider_settings=FAST)
    assert result.status == "not_found" and len(server.requests) == 3
    assert [a.status for a in RunStore(db).attempts(result.run_id)] == \
        ["incorrect", JUDGE, "incorrect"]


@pytest.mark.parametrize("answer", [
    f'```json\n{{"bottleneck": "{BOTTLENECK}", "change": "{CHANGE}"}}\n```',
    f'<think>hmm {{not json}}</think>Sure. {{"Bottleneck": "{BOTTLENECK}", '
    f'"Change": "{CHANGE}"}} Hope that helps.',
    f"**Bottleneck:** {BOTTLENECK}\n\n**Change:** {CHANGE}",
    f"- Diagnosis: {BOTTLENECK}\n- One change: {CHANGE}",
], ids=["fenced-json", "bare-json-after-thinking", "bold-labels", "bullets"])
def test_the_change_is_read_from_the_ways_judges_answer(answer):
    judgment = parse_judgment(answer)
    assert judgment == Judgment(CHANGE, BOTTLENECK)


def test_prose_is_the_change_and_an_empty_answer_is_none():
    assert parse_judgment(f"<think>grid</think>\n  {CHANGE}\n").change == CHANGE
    empty = parse_judgment("<think>only thinking</think>   ")
    assert not empty.ok and "empty" in empty.problem
    assert parse_judgment('{"change": ["use cdiv", "mask the tail"]}').change == \
        "use cdiv; mask the tail"


def test_coder_prompt_without_a_usable_judgment_is_the_refine_prompt():
    from warpsmith.prompts import refine_prompt
    from warpsmith.types import Verdict

    task = resolve_task("level1/relu")
    verdict = Verdict("incorrect", task.name, "c.py", "cpu", reasons=("wrong tail",))
    plain = refine_prompt(task, BROKEN, verdict, attempt=1)
    assert coder_prompt(task, BROKEN, verdict, Judgment(""), attempt=1) == plain
    advised = coder_prompt(task, BROKEN, verdict, Judgment(CHANGE), "ncu", attempt=1)
    assert advised.user.startswith(plain.user) and "Nsight Compute counters" in advised.user
