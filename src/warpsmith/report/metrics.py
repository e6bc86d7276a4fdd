"""A bench's numbers, each defined once: the docstring of each metric function below is its
definition, and docs/metrics.md repeats those docstrings word for word (a test compares them).

Published numbers in this field are hard to compare because each paper picks its own baseline,
statistic, failure convention and sample count; these choices are fixed here and written down.
A number that needs timings is None ("not measured") where nothing was timed, as on the CPU
interpreter: never a 0 or a 1 that would read as a measurement.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass

from ..bench.store import Item

PS = (0.0, 0.5, 0.8, 1.0, 1.5, 2.0)
BASELINES = ("eager", "compile")
OVERALL = "overall"


def speedup(item: Item, baseline: str) -> float | None:
    v = item.verdict
    if v is None:
        return None
    return v.speedup_vs_eager if baseline == "eager" else v.speedup_vs_compile


def choose(items: list[Item]) -> list[Item]:
    """The chosen sample of a task, best of K: among the task's samples that passed
    verification, the one with the highest speedup against eager PyTorch (untimed samples
    tie, and a tie goes to the lowest sample number); when none passed, the task's
    lowest-numbered sample, which carries its failure. Every other metric reads only the
    chosen sample of each task, except cost per task, which counts all K."""
    by_task: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_task[item.task].append(item)
    return [_best(samples) for _, samples in sorted(by_task.items())]


def _best(samples: list[Item]) -> Item:
    ordered = sorted(samples, key=lambda i: i.sample)
    passed = [i for i in ordered if i.passed]
    if not passed:
        return ordered[0]
    return max(passed, key=lambda i: speedup(i, "eager") or 0.0)  # max keeps the first of ties


def correctness_rate(chosen: list[Item]) -> float | None:
    """Correctness rate: the number of tasks whose chosen sample passed verification (status
    "passed"; "suspect" and every failure do not count), divided by the number of tasks. None
    for no tasks."""
    return sum(i.passed for i in chosen) / len(chosen) if chosen else None


def timed(chosen: list[Item], baseline: str) -> bool:
    """Speedups against a baseline count as measured when at least one chosen sample was
    verified on a GPU and every chosen sample that passed carries a speedup against that
    baseline. Otherwise every speedup-based metric of the group is None, "not measured"."""
    on_gpu = any(i.verdict is not None and i.verdict.device == "cuda" for i in chosen)
    return on_gpu and all(speedup(i, baseline) is not None for i in chosen if i.passed)


def fast_p(chosen: list[Item], p: float, baseline: str) -> float | None:
    """fast_p: the number of tasks whose chosen sample passed and runs more than p times as
    fast as the baseline (speedup > p, a strict inequality: a kernel exactly as fast as the
    baseline is not fast_1), divided by the number of tasks. Tasks that failed or have no
    candidate count as not fast. Speedup is the baseline's median time over the candidate's
    median time, at the task's timed shape, interleaved block by block on the same GPU; for
    torch.compile the fastest of the profile's compile modes. When measured, fast_0 equals the
    correctness rate."""
    if not chosen or not timed(chosen, baseline):
        return None
    return sum(i.passed and speedup(i, baseline) > p for i in chosen) / len(chosen)


def geomean_speedup_correct(chosen: list[Item], baseline: str) -> float | None:
    """Geometric-mean speedup over correct tasks: the geometric mean of the chosen samples'
    speedups against the baseline, over the tasks whose chosen sample passed. None when no
    task passed."""
    if not timed(chosen, baseline):
        return None
    return _geomean([speedup(i, baseline) for i in chosen if i.passed])


def geomean_speedup_all(chosen: list[Item], baseline: str) -> float | None:
    """Geometric-mean speedup over all tasks: the geometric mean over every task of its
    chosen sample's speedup against the baseline, a task that failed or has no candidate
    counting as 1× (the reference is kept)."""
    if not chosen or not timed(chosen, baseline):
        return None
    return _geomean([speedup(i, baseline) if i.passed else 1.0 for i in chosen])


def median_roofline_fraction(chosen: list[Item]) -> float | None:
    """Median fraction of the roofline floor: over the tasks whose chosen sample passed and
    has a floor, the median of floor time / candidate time (1.0 runs at the floor set by
    measured memory bandwidth and compute throughput). Tasks with ops that have no FLOP rule
    have no floor and are left out; None when no task has one (always on the CPU)."""
    values = _roofline_values(chosen)
    return statistics.median(values) if values else None


def _roofline_values(chosen: list[Item]) -> list[float]:
    return [i.verdict.roofline_fraction for i in chosen
            if i.passed and i.verdict.roofline_fraction is not None]


def cost_per_task(items: list[Item]) -> float | None:
    """Cost per task: the dollars paid to model providers for all K samples of all tasks
    (responses served from the cache cost nothing), divided by the number of tasks. None when
    the generator buys nothing (a folder of files). A lower bound when some calls went to a
    model with no known price (unpriced_calls > 0)."""
    costs = [i.cost_usd for i in items if i.cost_usd is not None]
    tasks = {i.task for i in items}
    return sum(costs) / len(tasks) if costs else None


def _geomean(values: list[float]) -> float | None:
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else None


@dataclass(frozen=True)
class Metrics:
    tasks: int
    samples: int  # K, as the bench was asked for
    correct: int
    correctness_rate: float | None
    fast_p: dict  # baseline -> {"0": rate, "0.5": …, "2": …}
    geomean_speedup_correct: dict  # baseline -> value
    geomean_speedup_all: dict
    median_roofline_fraction: float | None
    roofline_tasks: int  # how many tasks the median is over
    cost_per_task_usd: float | None
    unpriced_calls: int

    def as_dict(self) -> dict:
        return asdict(self)


def summarize(items: list[Item], samples: int) -> Metrics:
    chosen = choose(items)
    return Metrics(
        tasks=len(chosen), samples=samples, correct=sum(i.passed for i in chosen),
        correctness_rate=correctness_rate(chosen),
        fast_p={b: {f"{p:g}": fast_p(chosen, p, b) for p in PS} for b in BASELINES},
        geomean_speedup_correct={b: geomean_speedup_correct(chosen, b) for b in BASELINES},
        geomean_speedup_all={b: geomean_speedup_all(chosen, b) for b in BASELINES},
        median_roofline_fraction=median_roofline_fraction(chosen),
        roofline_tasks=len(_roofline_values(chosen)),
        cost_per_task_usd=cost_per_task(items),
        unpriced_calls=sum(i.spend.get("unpriced_calls", 0) for i in items))


def by_level(items: list[Item], samples: int) -> dict[str, Metrics]:
    """Overall first, then each level in name order; tasks without a level count overall."""
    levels = sorted({i.level for i in items if i.level})
    groups = {OVERALL: items} | {lv: [i for i in items if i.level == lv] for lv in levels}
    return {name: summarize(group, samples) for name, group in groups.items()}


DEFINITIONS = (choose, correctness_rate, fast_p, geomean_speedup_correct, geomean_speedup_all,
               median_roofline_fraction, cost_per_task, timed)
