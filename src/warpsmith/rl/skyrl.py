"""A SkyRL environment (skyrl-gym's BaseTextEnv): the model writes a kernel, warpsmith
verifies it, and the verdict's feedback is the next user turn, until the kernel passes or
max_turns is reached. Each step's reward is the shaped reward of that turn's verdict.

    from warpsmith.rl.skyrl import register
    register()                       # skyrl_gym.make("warpsmith", env_config=..., extras=...)

A dataset row's `reward_spec.ground_truth` (SkyRL's convention) or `extras["task"]` names the
task; `env_config` may hold `url` and `token` (the reward service) and `max_turns`. A turn
warpsmith could not judge (needs_gpu, too_large, an unknown task, the service down) ends the
episode with reward 0 and metadata judged=False: another turn would not judge it either.
"""

from __future__ import annotations

from typing import Any

from .scoring import Score, scorer_for

try:  # skyrl-gym is light (no torch), but optional: the class works without it
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ImportError:  # pragma: no cover - exercised where skyrl-gym is absent
    class BaseTextEnv:  # the attributes skyrl-gym's base sets
        def __init__(self):
            self.turns, self.max_turns = 0, 1

    BaseTextEnvStepOutput = dict

ENV_ID = "warpsmith"
MAX_TURNS = 3


class WarpsmithEnv(BaseTextEnv):
    def __init__(self, env_config: Any = None, extras: dict | None = None):
        super().__init__()
        config, extras = dict(env_config or {}), dict(extras or {})
        self.task = _task(extras)
        self.max_turns = int(extras.get("max_turns") or config.get("max_turns") or MAX_TURNS)
        self.scorer = config.get("scorer") or scorer_for(config.get("url"), config.get("token"))
        self.history: list[Score] = []

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        [score] = self.scorer.score([(self.task, action)])
        self.history.append(score)
        done = score.passed or not score.judged or self.turns >= self.max_turns
        observations = [] if done else [{"role": "user", "content": next_turn(score)}]
        return BaseTextEnvStepOutput(
            observations=observations, reward=score.reward if score.judged else 0.0,
            done=done, metadata={"status": score.status, "judged": score.judged,
                                 "turn": self.turns})

    def get_metrics(self) -> dict[str, Any]:
        return {"turns": self.turns, "solved": float(any(s.passed for s in self.history))}


def next_turn(score: Score) -> str:
    feedback = score.feedback or f"The kernel was not accepted ({score.status})."
    return (f"{feedback}\n\nFix the kernel and answer with the complete file in one ```python "
            "block defining class ModelNew.")


def _task(extras: dict) -> str:
    spec = extras.get("reward_spec") or {}
    task = extras.get("task") or (spec.get("ground_truth") if isinstance(spec, dict) else None)
    if not task:
        raise ValueError("the warpsmith env needs the task's name: reward_spec.ground_truth "
                         "or extras['task'] (e.g. level1/relu)")
    return str(task)


def register(env_id: str = ENV_ID) -> None:
    """Register WarpsmithEnv with skyrl-gym under `env_id` (once per process)."""
    import skyrl_gym

    if env_id not in skyrl_gym.registry:
        skyrl_gym.register(id=env_id, entry_point="warpsmith.rl.skyrl:WarpsmithEnv")
