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


def strategy(name: str) -> Strategy:
    if name not in STRATEGIES:
        raise UsageError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}")
    return STRATEGIES[name]()
