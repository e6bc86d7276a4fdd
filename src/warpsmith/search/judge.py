"""Coder and judge (CudaForge's split): each round the coder writes a kernel and the verifier
judges it; then a second model call, the judge, reads the verdict and hardware metrics
(Nsight Compute where it may run, else timing and roofline analysis: hwmetrics.py) and names
one change, which the coder's next prompt carries. `samples` chains run in parallel, each at
most `depth` coder rounds; like refine, a chain ends at its first pass where nothing is timed.

The judge is the run's own model. Its calls are recorded in the run store beside the coder's
attempts, as attempts with status "judge" under sample JUDGE_SAMPLE + chain, no candidate
and no verdict; the coder attempt they judged is their parent and they are the parent of the
coder attempt that followed their advice, so lineage reads coder → judge → coder. A resumed
run replays them like any attempt (no call, spend counted again), so it never re-asks the
judge or re-profiles (the profiling's GPU-seconds, not recorded, are then not counted again).
Which metrics source the judge saw is in its prompt's metrics heading,
`## Hardware metrics (source: …)`; `metrics_used()` reads it back.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from dataclasses import dataclass

from ..prompts import first_prompt
from ..prompts.judge import Judgment, coder_prompt, judge_prompt, parse_judgment
from ..store.runs import Attempt
from .context import RunContext

log = logging.getLogger(__name__)

JUDGE = "judge"  # the status of a judge call's record
JUDGE_SAMPLE = 10_000  # judge records live at sample JUDGE_SAMPLE + chain, apart from coders'


def is_advice(attempt: Attempt) -> bool:
    """A judge call's record: advice for the coder, no candidate (not counted as an attempt)."""
    return attempt.status == JUDGE


SOURCE_HEADING = re.compile(r"^## Hardware metrics \(source: (?P<line>.+)\)$", re.MULTILINE)


@dataclass(frozen=True)
class Advice:
    """What the coder's next round is told, and the judge record it came from."""

    record: Attempt
    judgment: Judgment
    source: str  # "ncu" or "roofline": the metrics the judge saw


class Judge:
    def run(self, ctx: RunContext) -> None:
        ctx.parallel(lambda c: self.chain(ctx, c), range(max(1, ctx.settings.samples)))

    def chain(self, ctx: RunContext, chain: int) -> None:
        s, previous, advice = ctx.settings, None, None
        for depth in range(s.depth):
            attempt = ctx.attempt(_coder_prompt(ctx, previous, advice, depth), chain=chain,
                                  depth=depth, sample=chain,
                                  parent=advice.record if advice else previous)
            if attempt is None or attempt.verdict is None:  # budget spent, or the call failed
                return
            if attempt.passed and not attempt.verdict.timing_measured:
                return  # verified where nothing is timed: no faster kernel can be told apart
            if depth == s.depth - 1:
                return  # no round left to act on advice: do not pay for it
            advice = judge(ctx, attempt, chain, depth)
            if advice is None:
                return
            previous = attempt


def _coder_prompt(ctx: RunContext, previous: Attempt | None, advice: Advice | None,
                  depth: int):
    s = ctx.settings
    if previous is None:
        return first_prompt(ctx.task, s.language, s.gpu)
    judgment = advice.judgment if advice else None
    return coder_prompt(ctx.task, _shown(previous), previous.verdict, judgment,
                        advice.source if advice else "", s.language, s.gpu, attempt=depth)


def judge(ctx: RunContext, attempt: Attempt, chain: int, depth: int) -> Advice | None:
    """Ask the judge about `attempt` (or replay its recorded answer); None once the budget is
    spent or the run was interrupted. A failed call is an Advice without a change."""
    sample = JUDGE_SAMPLE + chain
    done = ctx.store.find(ctx.run_id, chain, depth, sample)
    if done is not None:
        return _counted(ctx, _advice(dataclasses.replace(done, replayed=True)))
    if _out_of_budget(ctx):
        return None
    metrics = _metrics(ctx, attempt)
    s = ctx.settings
    prompt = judge_prompt(ctx.task, _shown(attempt), attempt.verdict, metrics.as_dict(),
                          s.language, s.gpu, attempt=depth)
    with ctx.lanes.llm.hold():
        response = ctx.judge_provider.complete(prompt.request(
            temperature=s.temperature, max_tokens=s.max_tokens,
            sample=s.stream * 100_000 + sample))
    if ctx.interrupted:
        return None
    record = Attempt(ctx.run_id, chain, depth, sample, JUDGE,
                     [dataclasses.asdict(m) for m in prompt.messages()],
                     response=response.text, usage=dataclasses.asdict(response.usage),
                     cost_usd=response.cost_usd, llm_cached=response.cached,
                     reasoning=response.choices[0].reasoning if response.choices else "",
                     parent_id=attempt.id)
    if not response.ok:
        record.error = f"{response.error.kind}: {response.error.message}"
    return _counted(ctx, _advice(ctx.store.add(record)))


def _metrics(ctx: RunContext, attempt: Attempt):
    from .hwmetrics import collect

    # ncu runs the candidate outside the executor, on a GPU it lends: no timed measurement
    # overlaps it there (context.gpu_slot).
    with ctx.gpu_slot() as visible:
        started = time.monotonic()
        metrics = collect(ctx.task, attempt.source or "", attempt.verdict, ctx.settings.gpu,
                          visible=visible)
        if attempt.verdict.device == "cuda":  # the profiled run is GPU time like a verification
            ctx.spend.add(gpu_s=time.monotonic() - started, call=False)
    log.info("judge metrics for attempt %s: %s", attempt.id, metrics.describe())
    return metrics


def _advice(record: Attempt) -> Advice:
    if record.error:
        judgment = Judgment("", problem=f"the judge's call failed ({record.error})")
    else:
        judgment = parse_judgment(record.response)
    return Advice(record, judgment, metrics_source(record))


def _counted(ctx: RunContext, advice: Advice) -> Advice:
    """The judge's call counts against the budget like the coder's; a cached answer is free,
    and a replayed one counts what it cost when it was made (as RunContext does)."""
    a = advice.record
    paid = not a.llm_cached
    tokens = a.usage.get("input_tokens", 0) + a.usage.get("output_tokens", 0)
    ctx.spend.add(tokens=tokens if paid else 0, usd=a.cost_usd if paid else 0.0, call=paid)
    return advice


def _out_of_budget(ctx: RunContext) -> bool:
    ctx.stopped = ctx.stopped or ctx.spend.exhausted(ctx.budget)
    return ctx.stopped is not None or ctx.interrupted


def metrics_used(record: Attempt) -> str:
    """The metrics a judge record's prompt showed: "ncu", or "roofline (fallback: why)";
    "" for a record that is not a judge's."""
    text = "\n".join(m.get("content", "") for m in record.prompt)
    found = SOURCE_HEADING.search(text)
    return found.group("line") if found else ""


def metrics_source(record: Attempt) -> str:
    """"ncu" or "roofline", or "" for a record that is not a judge's."""
    return (metrics_used(record).split() or [""])[0]


def _shown(attempt: Attempt) -> str:
    """What the next reader sees of an attempt: its code, or the answer that had none."""
    return attempt.source if attempt.source is not None else attempt.response[-4000:]
