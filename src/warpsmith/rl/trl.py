"""TRL's reward-function protocol (GRPOTrainer, RLOOTrainer): a callable TRL calls as
`reward_func(prompts=..., completions=..., completion_ids=..., **columns)`, every dataset
column a keyword holding one value per completion, answered with one float per completion,
None for a sample to leave out (TRL turns it into NaN and skips it).

    from warpsmith.rl.trl import reward_function
    trainer = GRPOTrainer(model=..., reward_funcs=[reward_function()], train_dataset=ds, ...)

The dataset needs a column naming each row's task ("task" unless `task_column` says
otherwise). None goes to a sample warpsmith could not judge: too_large or needs_gpu here, an
unknown task, or a reward service that did not answer. A completion with no code is judged:
status no_code, reward RewardConfig.no_code. docs/rl.md has a complete example.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from ..errors import UsageError
from .scoring import Score, Scorer, ascore, completion_text, scorer_for

log = logging.getLogger(__name__)


def reward_function(scorer: Scorer | None = None, *, url: str | None = None,
                    token: str | None = None, task_column: str = "task",
                    name: str = "warpsmith", **local) -> Callable[..., list[float | None]]:
    """The synchronous reward function. `url`: the reward service's; else the verifier runs
    in the trainer's process (`local`: LocalScorer's options, such as device or store_path)."""
    scorer = scorer or scorer_for(url, token, **local)

    def reward(prompts=None, completions=None, completion_ids=None, **columns):
        items = _items(completions, columns, task_column)
        return _rewards(scorer.score(items), columns)

    reward.__name__ = reward.__qualname__ = name  # TRL logs each reward under its name
    return reward


def async_reward_function(scorer: Scorer | None = None, *, url: str | None = None,
                          token: str | None = None, task_column: str = "task",
                          name: str = "warpsmith", **local):
    """The `async def` form: TRL awaits it on its own event loop beside its other async
    reward functions; the scoring itself runs on a worker thread."""
    scorer = scorer or scorer_for(url, token, **local)

    async def reward(prompts=None, completions=None, completion_ids=None, **columns):
        items = _items(completions, columns, task_column)
        return _rewards(await ascore(scorer, items), columns)

    reward.__name__ = reward.__qualname__ = name
    return reward


def _items(completions, columns: dict, task_column: str) -> list[tuple[str, str]]:
    if completions is None:
        raise UsageError("the reward function needs completions=")
    if task_column not in columns:
        shown = ", ".join(sorted(k for k in columns if k not in _TRL_KEYWORDS)) or "none"
        raise UsageError(f"no {task_column!r} column among the dataset's ({shown}): add one "
                         "naming each row's task, or pass task_column=")
    tasks = columns[task_column]
    if len(tasks) != len(completions):
        raise UsageError(f"{len(completions)} completions but {len(tasks)} task names")
    return [(_name(t), completion_text(c)) for t, c in zip(tasks, completions, strict=True)]


def _name(task) -> str:
    # `warpsmith export`'s records hold the task as {"name", "source"}
    return task.get("name", "") if isinstance(task, dict) else task


# what TRL adds to the dataset's columns (GRPOTrainer._calculate_rewards)
_TRL_KEYWORDS = {"trainer_state", "log_extra", "log_metric", "environments"}


def _rewards(scores: Sequence[Score], columns: dict) -> list[float | None]:
    for score in scores:
        if score.status in ("error", "unreachable"):
            log.warning("warpsmith reward: %s for task %r: %s", score.status, score.task,
                        score.error)
    _log(scores, columns)
    return [s.reward for s in scores]


def _log(scores: Sequence[Score], columns: dict) -> None:
    """Through TRL's log_metric / log_extra hooks, where this TRL passes them."""
    n = max(len(scores), 1)
    if callable(metric := columns.get("log_metric")):
        metric("warpsmith/passed", sum(s.passed for s in scores) / n)
        metric("warpsmith/no_code", sum(s.status == "no_code" for s in scores) / n)
        metric("warpsmith/not_judged", sum(not s.judged for s in scores) / n)
    if callable(extra := columns.get("log_extra")):
        extra("warpsmith_status", [s.status for s in scores])
