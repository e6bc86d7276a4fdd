"""One prompt, one answer: the field's baseline (fast_1 one-shot)."""

from __future__ import annotations

from ..prompts import first_prompt
from .context import RunContext


class OneShot:
    def run(self, ctx: RunContext) -> None:
        s = ctx.settings
        ctx.attempt(first_prompt(ctx.task, s.language, s.gpu))
