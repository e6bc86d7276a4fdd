"""Repeated sampling: `samples` independent answers to the same prompt, drawn in parallel;
the best verified one wins. Each draw has its own sample number, so each is cached apart."""

from __future__ import annotations

from ..prompts import first_prompt
from .context import RunContext


class BestOfN:
    def run(self, ctx: RunContext) -> None:
        s = ctx.settings
        prompt = first_prompt(ctx.task, s.language, s.gpu)
        ctx.parallel(lambda i: ctx.attempt(prompt, sample=i), range(s.samples))
