"""verl's custom reward function: `compute_score(data_source, solution_str, ground_truth,
extra_info)` returning a dict with "score" (verl/experimental/reward_loop/reward_manager/
naive.py calls it by keyword, and awaits it when it is a coroutine function).

    reward:
      custom_reward_function:
        path: pkg://warpsmith.rl.verl
        name: compute_score          # or compute_score_async
        reward_kwargs: {url: http://127.0.0.1:8000}   # omit to verify in the trainer's process

`ground_truth` (the dataset's reward_model.ground_truth) names the task. verl turns every
score into a tensor and has no way to skip a sample, so one warpsmith could not judge
(needs_gpu, too_large, an unknown task, the service down) scores 0 and says judged=0 in the
extra values verl logs beside it. Every extra value is a number, as verl's metrics take means.
"""

from __future__ import annotations

import threading

from .scoring import Score, Scorer, ascore, scorer_for

_scorers: dict[tuple, Scorer] = {}
_lock = threading.Lock()


def compute_score(data_source=None, solution_str: str = "", ground_truth=None,
                  extra_info=None, *, url: str | None = None, token: str | None = None,
                  **kwargs) -> dict:
    [score] = _scorer(url, token).score([(_task(ground_truth, extra_info), solution_str)])
    return result(score)


async def compute_score_async(data_source=None, solution_str: str = "", ground_truth=None,
                              extra_info=None, *, url: str | None = None,
                              token: str | None = None, **kwargs) -> dict:
    [score] = await ascore(_scorer(url, token), [(_task(ground_truth, extra_info),
                                                   solution_str)])
    return result(score)


def result(score: Score) -> dict:
    return {"score": score.reward if score.judged else 0.0, "judged": float(score.judged),
            "passed": float(score.passed), "no_code": float(score.status == "no_code")}


def _task(ground_truth, extra_info) -> str:
    # extra_info["task"] lets a dataset keep ground_truth for something else
    if isinstance(extra_info, dict) and extra_info.get("task"):
        return str(extra_info["task"])
    return "" if ground_truth is None else str(ground_truth)


def _scorer(url: str | None, token: str | None) -> Scorer:
    # one per configuration and process: its task cache and store outlive a single call
    key = (url, token)
    with _lock:
        if key not in _scorers:
            _scorers[key] = scorer_for(url, token)
        return _scorers[key]
