"""Raw model completions into the reward service, the Python API and OpenRLHF's endpoint:
the candidate extracted as `optimize` does, no code its own status, errors per item."""

from pathlib import Path

import httpx
import pytest

import warpsmith
from warpsmith.errors import UsageError
from warpsmith.executors import InlineExecutor
from warpsmith.serve.completions import from_completion, response_part
from warpsmith.serve.reward import RewardSettings, create_app, serve_in_thread
from warpsmith.serve.shaping import RewardConfig, shape_reward
from warpsmith.types import Verdict

KERNELS = Path(__file__).parent.parent / "kernels"
GOOD = (KERNELS / "good" / "relu_triton.py").read_text()
WRONG = (KERNELS / "good" / "sigmoid_triton.py").read_text()  # a sigmoid, sent for relu
TOKEN = "test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def fenced(source: str) -> str:
    return (f"<think>ReLU is max(x, 0); one program per block.</think>\nHere is my kernel:\n\n"
            f"```python\n{source}```\n\nIt masks the tail.")


PROSE = "I would write a Triton kernel that takes the max with zero, but I am not sure how."


class ByTextExecutor:
    """Passes exactly the good relu source, says incorrect for anything else: what it was
    handed shows whether the service extracted the candidate from the completion."""

    slots = 1

    def __init__(self):
        self.sources = []

    def verify(self, task, candidate, device=None, profile="quick", store_path=None):
        source = Path(candidate).read_text()
        self.sources.append(source)
        ok = source.strip() == GOOD.strip()
        return Verdict(status="passed" if ok else "incorrect", task=task.name,
                       candidate=str(candidate), device="cpu", correct=ok)

    def close(self):
        pass


def service(executor, tmp_path, **settings):
    settings = {"token": TOKEN, "store_path": tmp_path / "verdicts.sqlite"} | settings
    return serve_in_thread(create_app(RewardSettings(**settings), executor))


def completions_request(reward=None) -> dict:
    items = [{"task": "level1/relu", "completion": fenced(GOOD), "id": "good"},
             {"task": "level1/relu", "completion": fenced(WRONG), "id": "wrong"},
             {"task": "level1/relu", "completion": PROSE, "id": "prose"},
             {"task": "level9/nope", "completion": fenced(GOOD), "id": "unknown"}]
    return {"items": items} | ({"reward": reward} if reward else {})


def outcomes(response) -> list[tuple]:
    assert response.status_code == 200, response.text
    return [(i["id"], i["status"], i["reward"]) for i in response.json()["items"]]


def test_a_batch_of_completions_is_answered_item_by_item(tmp_path):
    executor = ByTextExecutor()
    with service(executor, tmp_path) as url:
        r = httpx.post(f"{url}/v1/verify", headers=AUTH, timeout=60,
                       json=completions_request({"incorrect": 0.1, "no_code": -0.2}))
    assert outcomes(r) == [("good", "passed", 1.0), ("wrong", "incorrect", 0.1),
                           ("prose", "no_code", -0.2), ("unknown", "error", None)]
    items = r.json()["items"]
    assert "no task 'level9/nope'" in items[3]["error"]
    assert "no code in the answer" in items[2]["verdict"]["reasons"][0]
    assert items[2]["attempts"] == 0  # never sent to the executor
    # the executor got the code alone: no fence, no reasoning, no prose
    assert [s.strip() for s in executor.sources] == [GOOD.strip(), WRONG.strip()]


def test_an_item_needs_exactly_one_of_candidate_or_completion(tmp_path):
    with service(ByTextExecutor(), tmp_path) as url:
        both = httpx.post(f"{url}/v1/verify", headers=AUTH, json={"items": [
            {"task": "level1/relu", "candidate": GOOD, "completion": GOOD}]})
        neither = httpx.post(f"{url}/v1/verify", headers=AUTH,
                             json={"items": [{"task": "level1/relu"}]})
    assert both.status_code == neither.status_code == 422
    assert "exactly one of candidate" in both.text


def test_a_no_code_reward_above_a_slow_correct_kernel_is_refused():
    with pytest.raises(UsageError, match="no_code"):
        RewardConfig(no_code=0.8)  # correct 1 + 0.5 × (−1) = 0.5 < 0.8


def test_no_code_is_distinct_from_compile_error_and_shaped_by_its_setting():
    found = from_completion(PROSE, "level1/relu")
    assert found.source is None and found.verdict.status == "no_code"
    parts = shape_reward(found.verdict, RewardConfig(no_code=-0.25))
    assert (parts.reward, parts.gate) == (-0.25, "absent")
    unfinished = from_completion("<think>let me think about the block size", "level1/relu")
    assert "raise max_tokens" in unfinished.verdict.reasons[0]


def test_response_part_drops_the_prompt_and_its_code():
    prompt = "Write ModelNew for:\n```python\nclass ModelNew: pass\n```\n"
    assert response_part(prompt + "ANSWER<|im_end|>", prompt) == "ANSWER<|im_end|>"
    assert response_part("<s>" + prompt + "ANSWER", prompt) == "ANSWER"
    assert response_part("decoded differently", prompt) == "decoded differently"


def test_openrlhf_endpoint_as_its_client_calls_it(tmp_path):
    """The body and the bare client of openrlhf/utils/agent.py (OpenRLHF/OpenRLHF,
    SingleTurnAgentExecutor._fetch_rewards_via_http): `query` is prompt + response decoded
    together, `labels` the task names, no headers, so the token rides in the URL. The prompt
    holds a fenced ModelNew of its own that must not be taken for the answer."""
    prompt = f"Make this faster.\n```python\n{WRONG}```\nAnswer:"
    payload = {"query": [prompt + fenced(GOOD) + "<|im_end|>", prompt + PROSE,
                         prompt + fenced(GOOD)],
               "prompts": [prompt, prompt, prompt],
               "labels": ["level1/relu", "level1/relu", None]}
    with service(ByTextExecutor(), tmp_path) as url:
        bare = httpx.post(f"{url}/v1/openrlhf", json=payload)
        wrong = httpx.post(f"{url}/v1/openrlhf?token=nope", json=payload)
        r = httpx.post(f"{url}/v1/openrlhf?token={TOKEN}", json=payload, timeout=60)
    assert bare.status_code == wrong.status_code == 401
    assert r.status_code == 200, r.text
    assert r.json() == {"rewards": [1.0, 0.0, 0.0], "scores": [1.0, 0.0, 0.0],
                        "extra_logs": {"judged": [1.0, 1.0, 0.0], "passed": [1.0, 0.0, 0.0],
                                       "no_code": [0.0, 1.0, 0.0], "error": [0.0, 0.0, 1.0]}}


def test_openrlhf_lengths_must_agree(tmp_path):
    with service(ByTextExecutor(), tmp_path) as url:
        r = httpx.post(f"{url}/v1/openrlhf", headers=AUTH,
                       json={"query": ["a", "b"], "labels": ["level1/relu"]})
    assert r.status_code == 422 and "one of each per query" in r.text


def test_python_api_takes_a_path_source_text_or_a_completion(tmp_path):
    with pytest.raises(UsageError, match="no candidate file"):
        warpsmith.verify("level1/relu", "kernel_that_is_not_there.py")
    with pytest.raises(UsageError, match="not both"):
        warpsmith.verify("level1/relu", GOOD, completion=GOOD)
    no_code = warpsmith.verify("level1/relu", completion=PROSE)
    assert no_code.status == "no_code" and no_code.task == "level1/relu"
    broken = warpsmith.verify("level1/relu", "import torch\nclass ModelNew(:\n", device="cpu",
                              use_cache=False)
    assert broken.status == "compile_error"
    assert broken.candidate.startswith("<source sha256:")


@pytest.mark.slow
def test_the_real_verifier_on_a_batch_of_completions(tmp_path):
    """The done-when batch of issue 29 on the CPU interpreter: a fenced correct kernel, a
    wrong one, prose, an unknown task; in order, never one exception for the batch."""
    with service(InlineExecutor(), tmp_path, device="cpu") as url:
        r = httpx.post(f"{url}/v1/verify", headers=AUTH, timeout=300,
                       json=completions_request({"incorrect": 0.1}))
    assert outcomes(r) == [("good", "passed", 1.0), ("wrong", "incorrect", 0.1),
                           ("prose", "no_code", 0.0), ("unknown", "error", None)]
