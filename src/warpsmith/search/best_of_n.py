"""Repeated sampling: `samples` independent answers to the same prompt, drawn in parallel;
the best verified one wins. Each draw has its own sample number, so each is cached apart."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from ..prompts import first_prompt
from .context import RunContext


class BestOfN:
    def run(self, ctx: RunContext) -> None:
        s = ctx.settings
        prompt = first_prompt(ctx.task, s.language, s.gpu)
        with ThreadPoolExecutor(max_workers=min(8, s.samples)) as pool:
            list(pool.map(lambda i: ctx.attempt(prompt, sample=i), range(s.samples)))
