"""The kernel library: the offline generator. A task whose traced reference is exactly one
of the supported patterns gets a complete, parameterised Triton candidate without any LLM.

    generate(task)            Generated(source, family, params, tune) or NotCovered(reason)
    coverage(tasks)           one row per task: the family, or why none applies
    FAMILIES[name].knobs      the knobs a tuner may vary, with their default values

Every family keeps one contract (family.py) and is listed once in registry.py, in the order
it is tried. The exact-pattern families (each file its matcher and kernels; exact.py tries
them) go first: they hold hand-written kernels for one op each (online softmax, the GEMMs,
pooling). What none of them matches goes to the graph generator (generator.py), which
places any pointwise chain and reductions with their prologues and epilogues into kernels
of the graph families: a matrix product with whatever follows it among them (gemm.py: the
chain fused into the GEMM's epilogue, row reductions, group norm and pooling over its output
in the kernels after it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tasks.suite import resolve_task
from ..types import Task
from .exact import match_task
from .family import Family
from .generator import Plan, plan_task, render_plan
from .match import Match, NoMatch
from .registry import FAMILIES, by_name, knobs


@dataclass(frozen=True)
class Generated:
    source: str
    family: str
    # what the matcher found (an exact family's Params; a graph plan's kernels as a dict):
    # structure, constants, init-argument bindings
    params: Any
    tune: dict[str, int] = field(default_factory=dict)  # the knob values rendered
    kernels: int = 1  # how many kernels the candidate launches


@dataclass(frozen=True)
class NotCovered:
    reason: str


@dataclass(frozen=True)
class CoverageRow:
    task: str
    family: str | None
    reason: str  # empty when covered
    kernels: int = 0


def generate(task: Task | str, tune: dict[str, int] | None = None) -> Generated | NotCovered:
    """`tune` overrides some of the family's knobs; the rest keep their defaults."""
    task = resolve_task(task) if isinstance(task, str | Path) else task
    found = find(task)
    if isinstance(found, NoMatch):
        return NotCovered(found.reason)
    if isinstance(found, Plan):
        source, values = render_plan(found, tune)
        if len(source) > MAX_SOURCE_CHARS:
            return NotCovered(_too_long(len(source)))
        return Generated(source, found.label, {"kernels": list(found.all_kernels)}, values,
                         len(found.all_kernels))
    values = knobs([found.family], tune, f"family {found.family!r}")
    source = by_name(found.family).render(found.params, values)
    return Generated(source, found.family, found.params, values)


# the verifier's scan reads no more of a candidate (verify.static.MAX_SOURCE_CHARS; a test
# holds the two equal): a longer one is rejected unread, so it is no candidate
MAX_SOURCE_CHARS = 262144


def _too_long(chars: int) -> str:
    return (f"the candidate would be {chars} characters, more than the {MAX_SOURCE_CHARS} "
            "the verifier reads (a generator limit: a DenseNet's cat of every feature map "
            "so far is a kernel of its own per layer)")


def find(task: Task) -> Match | Plan | NoMatch:
    """An exact family's match, else the graph generator's plan, else both reasons. An
    exception the generator raises on one task is that task's reason, never the caller's
    end (`coverage` goes on with the next task, `generate` reports NotCovered)."""
    try:
        return _find(task)
    except RecursionError:
        return NoMatch("the generator's placement nested deeper than Python's recursion "
                       "limit on this graph (a generator limit, not a fault of the task)")
    except Exception as e:  # any generator bug becomes this task's reason
        return NoMatch(f"the generator raised {type(e).__name__}: {e} (a generator limit "
                       "or bug, not a fault of the task)")


def _find(task: Task) -> Match | Plan | NoMatch:
    found = match_task(task)
    if isinstance(found, Match) or found.family is not None:
        return found
    planned = plan_task(task)
    if isinstance(planned, Plan):
        return planned
    return NoMatch(f"{found.reason}; the graph generator stops at {planned.reason}")


def coverage(tasks: list[Task]) -> list[CoverageRow]:
    rows = []
    for task in tasks:
        found = find(task)
        if isinstance(found, Match):
            rows.append(CoverageRow(task.name, found.family, "", 1))
        elif isinstance(found, Plan):
            chars = len(render_plan(found)[0])  # a candidate the verifier cannot read is none
            rows.append(CoverageRow(task.name, found.label, "", len(found.all_kernels))
                        if chars <= MAX_SOURCE_CHARS else
                        CoverageRow(task.name, None, _too_long(chars)))
        else:
            rows.append(CoverageRow(task.name, None, found.reason))
    return rows


def coverage_table(rows: list[CoverageRow]) -> str:
    """Plain text, one task a line: for logs, reports and the tests' failure messages."""
    width = max((len(r.task) for r in rows), default=0)
    return "\n".join(f"{r.task:<{width}}  {r.family or 'not covered: ' + r.reason}"
                     for r in rows)


__all__ = ["FAMILIES", "CoverageRow", "Family", "Generated", "Match", "NotCovered", "coverage",
           "coverage_table", "find", "generate", "match_task"]
