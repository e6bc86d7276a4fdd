"""The offline strategy: no model, no key. The kernel library renders a candidate for the
task if its reference is one of the library's patterns (warpsmith.library), and the verifier
checks it like any other. A task the library does not cover ends the run with the reason."""

from __future__ import annotations

from .context import RunContext
from .tune import MAX_ROUNDS, tune


class Library:
    def run(self, ctx: RunContext) -> None:
        from ..library import NotCovered, generate

        made = generate(ctx.task)
        if isinstance(made, NotCovered):
            ctx.note = f"the kernel library does not cover {ctx.task.name}: {made.reason}"
            return
        first = ctx.attempt_source(made.source, note=_note(made.family, made.tune))
        if first is None:  # no budget at all
            return
        if not (first.passed and first.verdict.timing_measured):
            ctx.note = ctx.note or ("not tuned: nothing is timed on this device" if first.passed
                                    else "")
            return
        # --depth bounds the tuner's rounds (0: the default rendering only)
        tune(first, made.tune, lambda knobs, i, parent: self._variant(ctx, knobs, i, parent),
             rounds=min(ctx.settings.depth, MAX_ROUNDS))

    @staticmethod
    def _variant(ctx: RunContext, knobs: dict[str, int], index: int, parent):
        from ..library import generate

        made = generate(ctx.task, tune=knobs)
        return ctx.attempt_source(made.source, note=_note(made.family, knobs), depth=index,
                                  parent=parent)


def _note(family: str, knobs: dict[str, int]) -> str:
    return f"library family {family}, knobs {knobs}"
