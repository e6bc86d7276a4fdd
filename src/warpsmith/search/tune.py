"""The knob tuner for library kernels: after the default rendering passes and is timed, try
each knob one step down and one step up (halved and doubled: block sizes and warp counts are
powers of two), keep whichever verified variant is fastest, and repeat from it while it helps.

Only a GPU can tell variants apart; on the CPU interpreter nothing is timed, so the tuner
says so and stops after the default. Every variant goes through the whole verifier, since a
block size can break a kernel (a row that no longer fits, a mask that no longer covers).
"""

from __future__ import annotations

from collections.abc import Callable

from ..store.runs import Attempt

STEPS = (0.5, 2.0)
MAX_ROUNDS = 3


def neighbours(tune: dict[str, int]) -> list[dict[str, int]]:
    """One knob changed by one step, each knob in turn; values stay whole and at least 1."""
    out = []
    for name, value in tune.items():
        for step in STEPS:
            new = max(1, int(value * step))
            if new != value:
                out.append(tune | {name: new})
    return out


def speed(attempt: Attempt | None) -> float:
    ok = attempt is not None and attempt.passed and attempt.verdict.timing_measured
    return attempt.verdict.speedup_vs_eager or 0.0 if ok else 0.0


def tune(start: Attempt, knobs: dict[str, int],
         try_variant: Callable[[dict[str, int], int, Attempt], Attempt | None],
         rounds: int = MAX_ROUNDS) -> Attempt:
    """Hill-climb from `start` (a passed, timed attempt rendered with `knobs`) for at most
    `rounds` rounds (0: no variant at all). try_variant renders, verifies and records one
    variant (its index numbers it in the run) and returns None once the budget is spent."""
    best, best_knobs, index = start, knobs, 0
    for _ in range(rounds):
        improved = False
        for variant in neighbours(best_knobs):
            index += 1
            attempt = try_variant(variant, index, best)
            if attempt is None:
                return best
            if speed(attempt) > speed(best):
                best, best_knobs, improved = attempt, variant, True
        if not improved:
            break
    return best
