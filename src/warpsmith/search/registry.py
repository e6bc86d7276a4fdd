"""Strategies by name. A strategy is anything with `run(ctx)`; it decides which prompts to
send and in what order, and leaves asking, verifying and recording to the RunContext."""

from __future__ import annotations

from typing import Protocol

from ..errors import UsageError
from .best_of_n import BestOfN
from .context import RunContext
from .evolve import Evolve
from .judge import Judge
from .library import Library
from .one_shot import OneShot
from .refine import Refine
from .tuner import Tune


class Strategy(Protocol):
    def run(self, ctx: RunContext) -> None: ...


LIBRARY = "library"  # the model spec of runs without a model
TUNE = "tune"
JUDGE = "judge"
MODEL_FREE = (LIBRARY, TUNE)  # strategies that ask no model (their runs' model is LIBRARY)
STRATEGIES: dict[str, type] = {"one-shot": OneShot, "best-of-n": BestOfN, "refine": Refine,
                               "library": Library, JUDGE: Judge, "evolve": Evolve,
                               TUNE: Tune}
DEFAULT_WITH_MODEL = "refine"


def strategy(name: str) -> Strategy:
    if name not in STRATEGIES:
        raise UsageError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}")
    return STRATEGIES[name]()


def needs_model(name: str) -> bool:
    """The one answer to "does this strategy ask a model?", for the CLI, MCP and the search."""
    strategy(name)  # an unknown name fails with the list
    return name not in MODEL_FREE


def model_and_strategy(model: str | None, name: str | None, model_option: str = "model",
                       strategy_option: str = "strategy") -> tuple[str, str]:
    """(model spec, strategy) for a run from what a user gave: no model and no strategy is
    the offline library, a model alone is refine; a strategy on the wrong side of the policy
    is a UsageError naming the caller's options (the CLI's --model, MCP's model)."""
    if name is None:
        return (model, DEFAULT_WITH_MODEL) if model else (LIBRARY, LIBRARY)
    if needs_model(name) and not model:
        raise UsageError(f"{strategy_option} {name} asks a model: give {model_option}, e.g. "
                         "openai:gpt-4.1, anthropic:claude-sonnet-4-5 or "
                         "openai-compatible:http://localhost:8000/v1#MODEL")
    if not needs_model(name) and model:
        raise UsageError(f"{strategy_option} {name} asks no model: leave out "
                         f"{model_option.split()[0]}")
    return (model or LIBRARY), name
