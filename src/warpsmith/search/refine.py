"""Refinement: each round shows the model its previous attempt and that attempt's verdict
(compiler error, where the output was wrong, timings, roofline fraction) and asks for a fix or
a faster kernel. `samples` independent chains run in parallel, each at most `depth` rounds.

A chain stops early once it has a verified kernel that cannot be improved on this device:
on the CPU nothing is timed, so the first pass ends it; on a GPU it keeps optimising.
"""

from __future__ import annotations

from ..prompts import first_prompt, refine_prompt
from ..store.runs import Attempt
from .context import RunContext


class Refine:
    def run(self, ctx: RunContext) -> None:
        ctx.parallel(lambda c: self.chain(ctx, c), range(max(1, ctx.settings.samples)))

    def chain(self, ctx: RunContext, chain: int) -> None:
        s, previous = ctx.settings, None
        for depth in range(s.depth):
            prompt = first_prompt(ctx.task, s.language, s.gpu) if previous is None else \
                refine_prompt(ctx.task, _shown(previous), previous.verdict, s.language, s.gpu,
                              attempt=depth)
            attempt = ctx.attempt(prompt, chain=chain, depth=depth, sample=chain,
                                  parent=previous)
            if attempt is None or attempt.verdict is None:  # budget spent, or the call failed
                return
            if attempt.passed and not attempt.verdict.timing_measured:
                return
            previous = attempt


def _shown(attempt: Attempt) -> str:
    """What the next round sees of this one: its code, or the answer that had none."""
    return attempt.source if attempt.source is not None else attempt.response[-4000:]
