"""Training records built from stored optimize runs: supervised (sft), trajectories (rl) and
preference pairs (pairs). docs/datasets.md documents every field; a change to a record's shape
bumps its schema version.

Only a verified kernel (an attempt whose verdict status is "passed") is ever labelled good: it
alone becomes an sft record, a positive reward, or the chosen side of a pair.

No record is ever emitted without the prompt that produced it: a kernel from no model (the
offline library, the tuner) has none, and a record built around an empty prompt teaches
nothing. Such records are skipped and counted under NO_PROMPT in the builders' `skipped`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..errors import WarpsmithError
from ..serve.shaping import RewardConfig, shape_reward
from ..store.runs import Attempt, RunRecord
from ..tasks.suite import resolve_task
from ..types import Verdict

# Version 2 (sft, pairs) and 3 (rl): the column names and formats TRL's trainers and
# `datasets.load_dataset("json", ...)` take as they are: conversational "prompt" (the
# messages the model was sent) with "completion" (SFTTrainer), "chosen"/"rejected" (DPO),
# or alone beside the "task" column (GRPO with warpsmith.rl.trl's reward).
SFT, RL, PAIRS = "warpsmith.sft/2", "warpsmith.rl/3", "warpsmith.pairs/2"
NO_PROMPT = "no prompt"  # the skip reason: an attempt no model was asked for

# Reward shaping (rl): the reward service's function with its defaults (serve/shaping.py), so
# a trajectory exported here scores a turn as the service scores the same verdict. An attempt
# that is not verified earns 0 (the defaults give every failure 0 too).
REWARD = RewardConfig()
PASS_REWARD = REWARD.correct  # a verified turn that was not timed (CPU)

# Pairs: a verified kernel beats a slower verified one only by this speedup ratio or more,
# so timing noise does not make preferences.
FASTER_MARGIN = 1.10
# Verdicts that prove the kernel wrong; suspect and needs_gpu prove nothing either way.
FAILED = frozenset({"compile_error", "runtime_error", "incorrect", "rejected", "timeout",
                    "crashed"})


@dataclass(frozen=True)
class RunData:
    """One optimize run as the exporters read it: its record, its task, its attempts."""

    run: RunRecord
    task: dict  # {"name", "source"}
    attempts: tuple[Attempt, ...]


def task_info(run: RunRecord, attempts: Iterable[Attempt]) -> dict:
    """The task's name and reference source; the source is None if the file is gone."""
    names = [a.verdict.task for a in attempts if a.verdict is not None and a.verdict.task]
    try:
        task = resolve_task(run.task)
    except WarpsmithError:
        return {"name": names[0] if names else run.task, "source": None}
    return {"name": task.name, "source": task.source}


def verified(a: Attempt) -> bool:
    return a.status == "passed" and a.verdict is not None and a.verdict.passed \
        and a.source is not None


def prompted(a: Attempt) -> bool:
    return bool(a.prompt)


def reward(a: Attempt) -> float:
    if not verified(a):
        return 0.0
    return shape_reward(a.verdict, REWARD).reward or 0.0


def verdict_summary(v: Verdict | None) -> dict | None:
    if v is None:
        return None
    return {"status": v.status, "device": v.device, "gpu": v.environment.get("gpu"),
            "timing_measured": v.timing_measured, "timed_shape": v.timed_shape,
            "speedup_vs_eager": v.speedup_vs_eager,
            "speedup_vs_compile": v.speedup_vs_compile,
            "roofline_fraction": v.roofline_fraction}


def _reasoning(a: Attempt) -> str | None:
    return a.reasoning or None


def assistant(a: Attempt) -> list[dict]:
    """The model's answer as TRL's conversational completion: one assistant message."""
    return [{"role": "assistant", "content": a.response or ""}]


def sft_records(runs: Iterable[RunData], skipped: Counter | None = None) -> Iterator[dict]:
    skipped = Counter() if skipped is None else skipped
    seen = set()
    for data in runs:
        for a in data.attempts:
            key = (data.task["name"], repr(a.prompt), a.response, a.source)
            if not verified(a) or key in seen:
                continue  # a cached answer met again in another run is one example
            if not prompted(a):
                skipped[NO_PROMPT] += 1
                continue
            seen.add(key)
            yield {"schema": SFT, "id": f"{a.run_id}/{a.id}", "run_id": a.run_id,
                   "attempt_id": a.id, "model": data.run.model,
                   "strategy": data.run.strategy, "task": data.task, "prompt": a.prompt,
                   "completion": assistant(a), "response": a.response,
                   "reasoning": _reasoning(a), "source": a.source,
                   "verdict": verdict_summary(a.verdict)}


def trajectories(attempts: Iterable[Attempt]) -> list[list[Attempt]]:
    """Each lineage path from a first attempt to a leaf (an attempt nothing refined), in
    order. A refine chain is one path; each best-of-n sample is a path of one turn."""
    attempts = list(attempts)
    by_id = {a.id: a for a in attempts}
    parents = {a.parent_id for a in attempts if a.parent_id is not None}
    paths = []
    for leaf in (a for a in attempts if a.id not in parents):
        path, node = [], leaf
        while node is not None:
            path.append(node)
            node = by_id.get(node.parent_id)
        paths.append(path[::-1])
    return paths


def _turn(index: int, a: Attempt) -> dict:
    v = a.verdict
    return {"index": index, "attempt_id": a.id, "parent_id": a.parent_id, "depth": a.depth,
            "messages": a.prompt, "response": a.response, "reasoning": _reasoning(a),
            "source": a.source, "status": a.status, "verified": verified(a),
            "feedback": (v.feedback if v else None) or a.error or "",
            "speedup_vs_eager": v.speedup_vs_eager if v else None, "reward": reward(a)}


def _outcome(path: list[Attempt]) -> dict:
    good = [a for a in path if verified(a)]
    best = max(good, key=reward) if good else None
    return {"final_status": path[-1].status, "solved": bool(good),
            "best_attempt_id": best.id if best else None,
            "best_speedup_vs_eager": best.verdict.speedup_vs_eager if best else None,
            "return": sum(reward(a) for a in path), "turns": len(path)}


def rl_records(runs: Iterable[RunData], skipped: Counter | None = None) -> Iterator[dict]:
    skipped = Counter() if skipped is None else skipped
    for data in runs:
        for path in trajectories(data.attempts):
            if not all(map(prompted, path)):  # a turn without a prompt has no policy to train
                skipped[NO_PROMPT] += 1
                continue
            yield {"schema": RL, "id": f"{data.run.id}/{path[-1].id}",
                   "run_id": data.run.id, "model": data.run.model,
                   "strategy": data.run.strategy, "task": data.task, "chain": path[0].chain,
                   "prompt": path[0].prompt,  # what a GRPO policy is asked: the first turn's
                   "turns": [_turn(i, a) for i, a in enumerate(path)],
                   "outcome": _outcome(path)}


def _side(a: Attempt) -> dict:
    return {"run_id": a.run_id, "attempt_id": a.id, "messages": a.prompt,
            "response": a.response, "reasoning": _reasoning(a), "source": a.source,
            "status": a.status,
            "speedup_vs_eager": a.verdict.speedup_vs_eager if a.verdict else None}


def _timed_speedup(a: Attempt) -> float | None:
    return a.verdict.speedup_vs_eager if a.verdict.timing_measured else None


def _beats(chosen: Attempt, other: Attempt) -> str | None:
    """Why `chosen` (verified) is preferred to `other`, or None when it is not."""
    if chosen.source == other.source or other.source is None:
        return None
    if other.status in FAILED:
        return "failed"
    if not verified(other):
        return None
    fast, slow = _timed_speedup(chosen), _timed_speedup(other)
    if fast and slow and fast >= slow * FASTER_MARGIN:
        return "slower"
    return None


def _first_prompt(a: Attempt, by_id: dict[int, Attempt]) -> list[dict]:
    while a.parent_id in by_id:
        a = by_id[a.parent_id]
    return a.prompt


def pair_records(runs: Iterable[RunData], skipped: Counter | None = None) -> Iterator[dict]:
    skipped = Counter() if skipped is None else skipped
    by_task: dict[str, list[tuple[RunData, Attempt]]] = {}
    for data in runs:
        for a in data.attempts:
            by_task.setdefault(data.task["name"], []).append((data, a))
    for group in by_task.values():
        by_id = {a.id: a for _, a in group}
        for data, chosen in group:
            if not verified(chosen):
                continue  # never a pair whose chosen side is not a verified kernel
            for _, other in group:
                why = _beats(chosen, other)
                if not why:
                    continue
                if prompted(chosen) and prompted(other) and _first_prompt(chosen, by_id):
                    yield _pair(data, chosen, other, why, by_id)
                else:
                    skipped[NO_PROMPT] += 1


def _pair(data: RunData, chosen: Attempt, rejected: Attempt, why: str, by_id) -> dict:
    fast, slow = _timed_speedup(chosen), rejected.verdict and _timed_speedup(rejected)
    return {"schema": PAIRS, "id": f"{chosen.run_id}/{chosen.id}>{rejected.run_id}/"
            f"{rejected.id}", "task": data.task, "prompt": _first_prompt(chosen, by_id),
            "chosen": assistant(chosen), "rejected": assistant(rejected),
            "chosen_info": _side(chosen), "rejected_info": _side(rejected), "rule": why,
            "speedup_ratio": fast / slow if why == "slower" else None}


BUILDERS = {"sft": sft_records, "rl": rl_records, "pairs": pair_records}
