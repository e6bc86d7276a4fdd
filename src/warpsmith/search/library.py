"""The offline strategy: no model, no key. The kernel library renders a candidate for the
task if its reference is one of the library's patterns (warpsmith.library), and the verifier
checks it like any other. A task the library does not cover ends the run with the reason."""

from __future__ import annotations

from .context import RunContext


class Library:
    def run(self, ctx: RunContext) -> None:
        from ..library import NotCovered, generate

        made = generate(ctx.task)
        if isinstance(made, NotCovered):
            ctx.note = f"the kernel library does not cover {ctx.task.name}: {made.reason}"
            return
        ctx.attempt_source(made.source, note=f"library family {made.family}, knobs {made.tune}")
