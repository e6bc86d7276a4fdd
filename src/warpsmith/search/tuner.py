"""The generic tuner: a search operator that needs no model. For any Triton candidate that
passed, it varies the knobs knobs.py finds (constexpr block sizes, num_warps, num_stages, and
grid literals derived from them), ranks the variants fast on the GPU, and sends the fastest
through the full verifier until one passes.

Fast ranking (its worker is verify/child/rank.py; this module is the trusted side): one
sandboxed worker process loads the task at its timed shape and every
variant, compiles them (each variant's first call; on a thread pool, where compilations
overlap only where Triton drops the GIL and in ptxas; optionally, once the threads have run
past a time limit, the rest first in helper processes of its own that fill Triton's on-disk
cache, so the thread pool's first calls load compiled kernels; a compile budget bounds it
all), drops
variants whose output disagrees with the start's, then times the rest with CUDA events and an
L2 flush, round-robin in shuffled order over several rounds so clock and thermal drift fall on
all variants alike. Its numbers only order the variants: the worker runs candidate code, so a
ranking may lie, and nothing from it is kept. Only a variant that passes the whole verifier
(ctx.attempt_source) is kept, and it becomes the run's best only if its verified speedup is
higher (context.better). On the CPU nothing is timed, so ranking is skipped and the tuner says
so. configs/s = variants ranked / wall time of the ranking (process start included).

The tuner's attempts are keyed (chain=TUNE_CHAIN, depth=variant index, sample=0); the variant
list is a function of the start's source, so a resumed run replays the same variants.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import secrets
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..config import worker_environment
from ..store.runs import Attempt
from ..types import Task
from ..verify.isolation import sandbox
from ..verify.protocol import signal_name
from ..verify.worker_report import finite
from .context import RunContext
from .knobs import Found, Knob, find_knobs, render

log = logging.getLogger(__name__)

TUNE_CHAIN = 10_000  # no strategy's own chains reach this far
MAX_VARIANTS = 48  # the start included
CONFIRM = 3  # variants sent through the full verifier, at most, per tuning
MARGIN = 0.02  # a variant must rank this much faster than the start to be worth verifying
MAX_MESSAGE = 16 << 20
MAX_TIMES = 10_000  # timed calls read per variant (the worker times far fewer)


@dataclass(frozen=True)
class RankSettings:
    rounds: int = 5  # round-robin passes over all variants
    calls: int = 3  # timed calls per variant per round
    warmup: int = 2  # untimed calls per variant after its first
    threads: int = min(8, os.cpu_count() or 1)  # first calls on threads in the worker
    # Compilation in processes (Triton's on-disk cache carries it to the worker's first
    # calls) for the variants the threads have not started after parallel_after_s. Off by
    # default: on the H200 it has not yet been seen to help (docs/search.md, tuner throughput).
    processes: int = 1
    parallel_after_s: float = 15.0
    compile_budget_s: float = 180.0  # variants not compiled by then drop out of the ranking
    time_budget_s: float = 60.0  # timing rounds stop after this (one round at least)
    timeout_s: float = 600.0  # the whole worker process


@dataclass(frozen=True)
class Variant:
    index: int  # 0 is the start itself
    values: dict[str, int]
    source: str


def variant_set(knobs: tuple[Knob, ...], limit: int = MAX_VARIANTS,
                seed: int = 0) -> list[dict[str, int]]:
    """The start, then every single-knob change (one step before two), then random
    combinations (knobs interact: a bigger block wants more warps) up to `limit`."""
    start = {k.name: k.value for k in knobs}
    out = [start]
    for step in (1, 2):
        for knob in knobs:
            ladder = knob.ladder()
            at = ladder.index(knob.value)
            for i in (at - step, at + step):
                if 0 <= i < len(ladder):
                    out.append(start | {knob.name: ladder[i]})
    rng = random.Random(seed)
    for _ in range(limit * 20):
        if len(out) >= limit:
            break
        combo = {k.name: rng.choice(k.ladder()) for k in knobs}
        if combo not in out:
            out.append(combo)
    return out[:limit]


def make_variants(source: str, found: Found, limit: int = MAX_VARIANTS) -> list[Variant]:
    """Deterministic in the source: a resumed run numbers the same variants the same way."""
    seed = int.from_bytes(hashlib.sha256(source.encode()).digest()[:8], "little")
    variants, seen = [], set()
    for values in variant_set(found.knobs, limit, seed):
        text = render(source, found.knobs, values)
        if text not in seen:
            seen.add(text)
            variants.append(Variant(len(variants), values, text))
    return variants


def changes(found: Found, values: dict[str, int]) -> str:
    moved = [f"{k.name} {k.value}->{values[k.name]}" for k in found.knobs
             if values.get(k.name, k.value) != k.value]
    return ", ".join(moved) or "no change"


# ---------------------------------------------------------------------------------------
# Ranking (trusted side)


@dataclass(frozen=True)
class Ranked:
    index: int
    median_us: float | None = None
    samples: int = 0
    agrees: bool = False  # its first output matched the start's (a pre-filter only)
    compile_s: float = 0.0  # its first call: compilation, launch and the agreement check
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.median_us is not None and self.agrees and not self.error


@dataclass(frozen=True)
class Ranking:
    entries: tuple[Ranked, ...] = ()  # in variant order
    wall_s: float = 0.0  # the whole worker process, start to exit
    phases: dict = field(default_factory=dict)  # setup_s, compile_s, time_s in the worker
    error: str = ""
    log_tail: str = ""

    @property
    def configs_per_s(self) -> float:
        return len(self.entries) / self.wall_s if self.wall_s else 0.0

    @property
    def start_us(self) -> float | None:
        return self.entries[0].median_us if self.entries and self.entries[0].ok else None

    def predicted(self, index: int) -> float | None:
        """The start's median over this variant's: > 1 means faster."""
        entry = self.entries[index]
        if not entry.ok or self.start_us is None:
            return None
        return self.start_us / entry.median_us

    def faster(self, margin: float = MARGIN) -> list[int]:
        """Variants ranked faster than the start by the margin, fastest first."""
        found = [(self.predicted(e.index), e.index) for e in self.entries[1:]]
        return [i for p, i in sorted(found, key=lambda x: -(x[0] or 0.0))
                if p is not None and p >= 1.0 + margin]

    def summary(self) -> str:
        failed = sum(1 for e in self.entries if not e.ok)
        phases = ", ".join(f"{k} {v:.1f} s" for k, v in self.phases.items())
        return (f"{len(self.entries)} configs ranked in {self.wall_s:.1f} s "
                f"({self.configs_per_s:.2f} configs/s; {phases}; {failed} failed or disagreed)")


def rank(task: Task, variants: list[Variant], settings: RankSettings = RankSettings(),
         shape: str | None = None, visible: str | None = None) -> Ranking:
    """Time every variant in one sandboxed worker on the GPU (`visible`: which one, a
    CUDA_VISIBLE_DEVICES entry; None: the default); variant 0 is the start."""
    job_dir = Path(tempfile.mkdtemp(prefix="warpsmith-rank-"))
    scratch = Path(tempfile.mkdtemp(prefix="warpsmith-rank-cwd-"))  # the worker's empty cwd
    try:
        paths = []
        for v in variants:
            path = job_dir / f"variant_{v.index}.py"
            path.write_text(v.source)
            paths.append(str(path))
        job = {"task": str(task.path), "shape": shape or task.shapes[-1].name,
               "job_dir": str(job_dir),
               "seed": secrets.randbits(31), "variants": paths, **asdict(settings)}
        (job_dir / "job.json").write_text(json.dumps(job))
        report, wall_s, tail, problem = _spawn(job_dir, scratch, settings.timeout_s, visible)
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    return _ranking(report, wall_s, tail, problem, len(variants))


def _ranking(report: dict | None, wall_s: float, tail: str, problem: str,
             count: int) -> Ranking:
    """The ranking worker's report (the candidate variants ran in that process, so every
    field is the candidate's to forge) read into typed, bounded records: a value of the
    wrong type or not finite counts as absent, never as an exception out of a search."""
    if report is None:
        return Ranking(wall_s=wall_s, error=problem, log_tail=tail)
    items = report.get("variants")
    # one entry per variant, in order (entries are looked up by position): an item that is
    # not a record is a variant that did not run
    entries = [_ranked(i, item) if isinstance(item, dict) else
               Ranked(i, error="a malformed result from the ranking worker")
               for i, item in enumerate(items[:count] if isinstance(items, list) else [])]
    phases = report.get("phases")
    phases = {str(k)[:40]: float(v) for k, v in list(phases.items())[:8]
              if finite(v)} if isinstance(phases, dict) else {}
    ranking = Ranking(tuple(entries), wall_s, phases, str(report.get("error") or "")[:500],
                      tail)
    if not ranking.error and ranking.start_us is None:
        start = entries[0].error if entries else "no result"
        ranking = Ranking(ranking.entries, wall_s, ranking.phases,
                          f"the start did not run in the ranking worker: {start}", tail)
    return ranking


def _ranked(index: int, item: dict) -> Ranked:
    times = item.get("times_us")
    times = [float(t) for t in times[:MAX_TIMES] if finite(t) and t > 0] \
        if isinstance(times, list) else []
    compile_s = item.get("compile_s")
    return Ranked(index, _median(times), len(times), item.get("agrees") is True,
                  float(compile_s) if finite(compile_s) else 0.0,
                  str(item.get("error") or "")[:500])


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


WORKER = "import sys; from warpsmith.verify.child.rank import worker_main; " \
         "worker_main(sys.argv[1], int(sys.argv[2]))"


def _spawn(job_dir: Path, scratch: Path, timeout_s: float,
           visible: str | None) -> tuple[dict | None, float, str, str]:
    """The ranking worker, sandboxed as the verify worker is (sandbox.run_worker: its own
    process group, a bounded log tail, a framed message on an inherited pipe, a deadline,
    every descendant killed at the end). Returns (report, seconds, log tail, why no report)."""
    out = sandbox.run_worker(job_dir, scratch, timeout_s, worker_environment("cuda", visible),
                             MAX_MESSAGE, program=("-c", WORKER))
    if out.report is not None:
        return out.report, out.seconds, out.log_tail, ""
    why = (f"the ranking worker ran past {timeout_s:.0f} s" if out.timed_out else out.malformed
           or f"the ranking worker ended ({signal_name(out.returncode)}) "
           "without a report")
    return None, out.seconds, out.log_tail, why


# ---------------------------------------------------------------------------------------
# The operator


@dataclass
class TuneResult:
    kept: Attempt | None  # the first ranked variant that passed the full verifier
    note: str
    ranking: Ranking | None = None
    variants: int = 0
    knobs: int = 0


def tune(ctx: RunContext, start: Attempt, settings: RankSettings = RankSettings(),
         limit: int = MAX_VARIANTS, confirm_at_most: int = CONFIRM) -> TuneResult:
    """Vary `start` (a passed attempt), rank the variants on the GPU, verify the fastest."""
    found = find_knobs(start.source or "")
    if not found.knobs:
        return TuneResult(None, f"not tuned: {found.reason}")
    variants = make_variants(start.source, found, limit)
    counts = {"variants": len(variants) - 1, "knobs": len(found.knobs)}
    what = f"{counts['knobs']} knobs, {counts['variants']} variants"
    if not _timed_here(ctx):
        return TuneResult(None, f"not tuned ({what}): ranking skipped, nothing is timed on "
                                "the CPU", **counts)
    with ctx.gpu_slot() as visible:  # the ranking runs outside the executor, on a lent GPU
        ranking = rank(ctx.task, variants, settings, visible=visible)
    ctx.spend.add(gpu_s=ranking.wall_s, call=False)
    if ranking.error:
        return TuneResult(None, f"not tuned ({what}): the ranking failed: "
                                f"{ranking.error.splitlines()[0]}", ranking, **counts)
    order = ranking.faster(MARGIN)
    if not order:
        return TuneResult(None, f"tuned: no variant ranked {MARGIN:.0%} faster than the start "
                                f"({ranking.summary()})", ranking, **counts)
    kept = confirm(ctx, start, found, variants, ranking, order[:confirm_at_most])
    return TuneResult(kept, _outcome(kept, start, found, ranking), ranking, **counts)


def _timed_here(ctx: RunContext) -> bool:
    if ctx.settings.device != "cuda":
        return False
    import torch

    return torch.cuda.is_available()


def confirm(ctx: RunContext, start: Attempt, found: Found, variants: list[Variant],
            ranking: Ranking | None, order: list[int]) -> Attempt | None:
    """The ranked variants through the full verifier, in order, until one passes; None if
    none did or the budget ran out."""
    for place, index in enumerate(order, 1):
        variant = variants[index]
        predicted = ranking.predicted(index) if ranking else None
        note = (f"tuner: variant {index} ({changes(found, variant.values)}), ranked {place}"
                + (f" at {predicted:.2f}x the start" if predicted else "")
                + (f"; {ranking.summary()}" if ranking else ""))
        attempt = ctx.attempt_source(variant.source, note=note, chain=TUNE_CHAIN,
                                     depth=index, parent=start)
        if attempt is None:
            return None
        if attempt.passed:
            return attempt
    return None


def _outcome(kept: Attempt | None, start: Attempt, found: Found, ranking: Ranking) -> str:
    if kept is None:
        return f"tuned: no ranked variant passed the verifier ({ranking.summary()})"
    before = start.verdict.speedup_vs_eager or 0.0
    after = kept.verdict.speedup_vs_eager or 0.0
    verb = "kept" if after > before else "verified but not faster than the start"
    return (f"tuned: variant {kept.depth} {verb}, {after:.2f}x vs eager (start {before:.2f}x); "
            f"{ranking.summary()}")


def tune_best(ctx: RunContext) -> Attempt | None:
    """The final step of a strategy: tune the run's best attempt. Returns the variant that
    passed, if one did (ctx.best already holds it when it is faster); the note says what
    happened either way."""
    start = ctx.best
    if start is None or not start.passed or not start.source or ctx.stopped or \
            ctx.interrupted:
        return None
    result = tune(ctx, start)
    log.info("%s", result.note)
    ctx.note = "; ".join(p for p in (ctx.note, result.note) if p)
    return result.kept


class Tune:
    """`--strategy tune`: verify the candidate file in Settings.start, then tune it."""

    def run(self, ctx: RunContext) -> None:
        path = ctx.settings.start
        if not path:
            ctx.note = "the tune strategy needs a starting candidate file (--start FILE)"
            return
        try:
            source = Path(path).read_text()
        except OSError as e:
            ctx.note = f"cannot read the starting candidate {path}: {e.strerror or e}"
            return
        first = ctx.attempt_source(source, note=f"tuner: the starting candidate {path}",
                                   chain=TUNE_CHAIN, depth=0)
        if first is None:
            return
        if not first.passed:
            ctx.note = f"not tuned: the starting candidate did not pass ({first.status})"
            return
        result = tune(ctx, first)
        ctx.note = result.note
