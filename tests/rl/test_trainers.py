"""verl's, OpenRLHF's and SkyRL's calling code against warpsmith.rl.

skyrl-gym installs from PyPI without torch, so SkyRL's own registry, make() and BaseTextEnv
drive the environment here. verl (it pins its own transformers and pulls Ray, wandb, …) and
OpenRLHF (DeepSpeed, vLLM) do not install on this CPU machine without changing the pinned
stack, so their calling convention is reproduced from their source, cited at each test."""

import asyncio
import importlib
import importlib.util
import inspect
from functools import partial
from pathlib import Path

import pytest

from warpsmith.serve.reward import RewardSettings, create_app, serve_in_thread
from warpsmith.types import Verdict

KERNELS = Path(__file__).parent.parent / "kernels"
GOOD = (KERNELS / "good" / "relu_triton.py").read_text()
WRONG = (KERNELS / "good" / "sigmoid_triton.py").read_text()
PROSE = "I would take the max with zero."
TOKEN = "t0ken"


def fenced(source: str) -> str:
    return f"<think>one program per block</think>\n```python\n{source}```\n"


class ByTextExecutor:
    """Passes the good relu source alone; feedback names the attempt."""

    slots = 1

    def verify(self, task, candidate, device=None, profile="quick", store_path=None):
        ok = Path(candidate).read_text().strip() == GOOD.strip()
        return Verdict(status="passed" if ok else "incorrect", task=task.name,
                       candidate=str(candidate), device="cpu", correct=ok,
                       feedback="" if ok else "Output mismatch at shape (16, 1024).")

    def close(self):
        pass


@pytest.fixture
def url(tmp_path):
    app = create_app(RewardSettings(token=TOKEN, store_path=tmp_path / "v.sqlite"),
                     ByTextExecutor())
    with serve_in_thread(app) as base:
        yield base


# --- verl -------------------------------------------------------------------------------

def verl_reward_fn(name: str, reward_kwargs: dict):
    """verl/trainer/ppo/reward.py (volcengine/verl), get_custom_reward_fn: the module by
    load_module("pkg://warpsmith.rl.verl") (verl/utils/import_utils.py: importlib on the
    dotted name), the function by name, reward_kwargs merged over the call's keywords."""
    raw_fn = getattr(importlib.import_module("warpsmith.rl.verl"), name)
    if not inspect.iscoroutinefunction(raw_fn):
        return partial(lambda fn, extra, *a, **kw: fn(*a, **{**kw, **extra}), raw_fn,
                       reward_kwargs)

    async def call(*a, **kw):
        return await raw_fn(*a, **{**kw, **reward_kwargs})

    return call


def verl_run_single(compute_score, solution_str: str, ground_truth: str) -> float:
    """verl/experimental/reward_loop/reward_manager/naive.py, run_single: keywords only,
    awaited when a coroutine function, a dict's "score" taken, every key kept as extra info."""
    kwargs = dict(data_source="warpsmith", solution_str=solution_str,
                  ground_truth=ground_truth, extra_info={"num_turns": None})

    async def run():
        if inspect.iscoroutinefunction(compute_score):
            return await compute_score(**kwargs)
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: compute_score(**kwargs))

    result = asyncio.run(run())
    assert isinstance(result, dict) and all(isinstance(v, float) for v in result.values())
    return result


@pytest.mark.parametrize("name", ["compute_score", "compute_score_async"])
def test_verl_loads_and_calls_compute_score(url, name):
    fn = verl_reward_fn(name, {"url": url, "token": TOKEN})
    assert verl_run_single(fn, fenced(GOOD), "level1/relu") == {
        "score": 1.0, "judged": 1.0, "passed": 1.0, "no_code": 0.0}
    assert verl_run_single(fn, fenced(WRONG), "level1/relu")["score"] == 0.0
    assert verl_run_single(fn, PROSE, "level1/relu")["no_code"] == 1.0
    unknown = verl_run_single(fn, fenced(GOOD), "level9/nope")
    assert unknown == {"score": 0.0, "judged": 0.0, "passed": 0.0, "no_code": 0.0}


def test_verl_in_process_without_a_url():
    fn = verl_reward_fn("compute_score", {})
    assert verl_run_single(fn, PROSE, "level1/relu")["no_code"] == 1.0


# --- OpenRLHF ---------------------------------------------------------------------------

def test_openrlhf_loads_reward_func_from_the_file_and_calls_it():
    """openrlhf/utils/agent.py (OpenRLHF/OpenRLHF), SingleTurnAgentExecutor: a
    --remote_rm_url ending in .py is loaded with spec_from_file_location and its
    reward_func(queries, prompts, labels) called one sample at a time on a thread; "rewards",
    "scores" and "extra_logs" read from what it returns."""
    import warpsmith.rl.openrlhf as module

    spec = importlib.util.spec_from_file_location("reward_func", module.__file__)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    prompt = f"Speed this up:\n```python\n{WRONG}```\n"
    queries = [prompt + PROSE + "<|im_end|>", prompt + fenced(GOOD)]

    async def fetch():
        return await asyncio.gather(*(asyncio.to_thread(loaded.reward_func, [q], [prompt], [label])
                                      for q, label in zip(queries, ["level1/relu", "level9/nope"],
                                                          strict=True)))

    first, second = asyncio.run(fetch())
    assert first == {"rewards": [0.0], "scores": [0.0], "extra_logs": {
        "judged": [1.0], "passed": [0.0], "no_code": [1.0], "error": [0.0]}}
    assert second["extra_logs"]["error"] == [1.0] and second["rewards"] == [0.0]


# --- SkyRL ------------------------------------------------------------------------------

def test_skyrl_gym_makes_and_steps_the_environment(url):
    """skyrl-gym's own registry and make(); the generator's loop (SkyRL skyrl/train/
    generators/skyrl_gym_generator.py): init(prompt), then step(model output) until done,
    each step's observations appended as the next turn."""
    skyrl_gym = pytest.importorskip("skyrl_gym", reason="skyrl-gym is in the [rl] extra")
    from skyrl_gym.envs.base_text_env import BaseTextEnv

    from warpsmith.rl.skyrl import register

    register()
    env = skyrl_gym.make("warpsmith", env_config={"url": url, "token": TOKEN},
                         extras={"reward_spec": {"ground_truth": "level1/relu"},
                                 "max_turns": 3})
    assert isinstance(env, BaseTextEnv)
    prompt = [{"role": "user", "content": "Write ModelNew for level1/relu."}]
    assert env.init(prompt) == (prompt, {})
    steps = [env.step(answer) for answer in (PROSE, fenced(WRONG), fenced(GOOD))]
    assert [(s["reward"], s["done"], s["metadata"]["status"]) for s in steps] == [
        (0.0, False, "no_code"), (0.0, False, "incorrect"), (1.0, True, "passed")]
    assert "no code in the answer" in steps[0]["observations"][0]["content"]
    assert "Output mismatch" in steps[1]["observations"][0]["content"]
    assert steps[1]["observations"][0]["role"] == "user" and steps[2]["observations"] == []
    assert env.get_metrics() == {"turns": 3, "solved": 1.0}


def test_skyrl_stops_at_max_turns_and_on_what_it_cannot_judge(url):
    from warpsmith.rl.skyrl import WarpsmithEnv

    env = WarpsmithEnv({"url": url, "token": TOKEN}, {"task": "level1/relu", "max_turns": 1})
    assert env.step(fenced(WRONG))["done"]
    lost = WarpsmithEnv({"url": "http://127.0.0.1:9"}, {"task": "level1/relu"}).step(PROSE)
    assert (lost["done"], lost["reward"], lost["metadata"]["judged"]) == (True, 0.0, False)
    with pytest.raises(ValueError, match="reward_spec.ground_truth"):
        WarpsmithEnv({}, {})
