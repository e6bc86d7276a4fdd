"""The kernel library: the offline generator. A task whose traced reference is exactly one
of the supported patterns gets a complete, parameterised Triton candidate without any LLM.

    generate(task)            Generated(source, family, params, tune) or NotCovered(reason)
    coverage(tasks)           one row per task: the family, or why none applies
    FAMILIES[name].defaults   the knobs a tuner may vary, with their default values
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..tasks.suite import resolve_task
from ..types import Task
from . import (  # noqa: F401 (each module registers its family)
    attention,
    cross_entropy,
    cumsum,
    elementwise,
    embedding,
    group_norm,
    kl_div,
    layer_norm,
    matmul,
    mse_loss,
    pool2d,
    reduce,
    rms_norm,
    softmax,
)
from .match import Match, NoMatch, match_task
from .registry import FAMILIES, Family, family, knobs


@dataclass(frozen=True)
class Generated:
    source: str
    family: str
    params: dict  # what the matcher found: structure, constants, init-argument bindings
    tune: dict[str, int] = field(default_factory=dict)  # the knob values rendered


@dataclass(frozen=True)
class NotCovered:
    reason: str


@dataclass(frozen=True)
class CoverageRow:
    task: str
    family: str | None
    reason: str  # empty when covered


def generate(task: Task | str, tune: dict[str, int] | None = None) -> Generated | NotCovered:
    """`tune` overrides some of the family's knobs; the rest keep their defaults."""
    task = resolve_task(task) if isinstance(task, str | Path) else task
    found = match_task(task)
    if isinstance(found, NoMatch):
        return NotCovered(found.reason)
    values = knobs(found.family, tune)
    source = family(found.family).render(found.params, values)
    return Generated(source, found.family, found.params, values)


def coverage(tasks: list[Task]) -> list[CoverageRow]:
    rows = []
    for task in tasks:
        found = match_task(task)
        if isinstance(found, Match):
            rows.append(CoverageRow(task.name, found.family, ""))
        else:
            rows.append(CoverageRow(task.name, None, found.reason))
    return rows


def coverage_table(rows: list[CoverageRow]) -> str:
    """Plain text, one task a line: for logs, reports and the tests' failure messages."""
    width = max((len(r.task) for r in rows), default=0)
    return "\n".join(f"{r.task:<{width}}  {r.family or 'not covered: ' + r.reason}"
                     for r in rows)


__all__ = ["FAMILIES", "CoverageRow", "Family", "Generated", "Match", "NotCovered", "coverage",
           "coverage_table", "generate", "match_task"]
