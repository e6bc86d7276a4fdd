"""The exact families' pass: every declared shape traced, the exact families tried on each
trace in the registry's order (the first whose pattern fits wins), their parameters unified
into one set for every shape (match.unify)."""

from __future__ import annotations

from dataclasses import replace

from ..types import Task
from .match import Match, NoMatch, unify
from .registry import EXACT
from .trace import Ref, Trace, Untraceable, trace_task


def match_task(task: Task) -> Match | NoMatch:
    traces = trace_task(task)
    if isinstance(traces, Untraceable):
        return NoMatch(traces.reason)
    matches = [match_trace(t) for t in traces]
    failed = {t.shape: m for t, m in zip(traces, matches, strict=True)
              if isinstance(m, NoMatch)}
    if failed:
        if len(failed) == len(traces) and len({m.reason for m in failed.values()}) == 1:
            return next(iter(failed.values()))
        shape, first = next(iter(failed.items()))
        return NoMatch(f"shape {shape!r}: {first.reason}", first.family)
    families = {m.family for m in matches}
    if len(families) > 1:
        return NoMatch(f"shapes trace to different families: {', '.join(sorted(families))}")
    params = unify([m.params for m in matches], [t.init_inputs for t in traces])
    if isinstance(params, NoMatch):
        return params
    return Match(matches[0].family, params)


def match_trace(trace: Trace) -> Match | NoMatch:
    if _single_output(trace) is None:
        return NoMatch("forward does not return exactly one tensor made by an op")
    mutates = _mutates_state(trace)
    for family in EXACT:
        # only a family whose kernels make the forward's in-place updates (batch norm's
        # running statistics) sees a trace that changes an input or a parameter
        if mutates and not getattr(family, "updates_state", False):
            continue
        params = family.match(trace, None)
        if isinstance(params, NoMatch):  # the pattern fits, but the family declines it
            return params
        if params is not None:
            return Match(family.name, _with_call(params, trace))
    if mutates:
        return NoMatch("forward changes an input or a parameter in place")
    return NoMatch(f"no library family implements the op sequence {_op_list(trace)}")


def _with_call(params, trace: Trace):
    """The forward's argument names and the task's dtype, which every exact renderer reads."""
    if isinstance(params, dict):
        return {"args": list(trace.arg_names), "dtype": trace.dtype} | params
    return replace(params, args=trace.arg_names, dtype=trace.dtype)


def _single_output(trace: Trace) -> Ref | None:
    out = trace.output
    return out if isinstance(out, Ref) and out.kind == "node" else None


def _mutates_state(trace: Trace) -> bool:
    """An in-place op on an op's own result is plain dataflow; on an input it is a side
    effect the candidate would have to reproduce."""
    for node in trace.nodes:
        if node.in_place and node.args:
            target = node.args[0][1]
            if not (isinstance(target, Ref) and target.kind == "node"):
                return True
    return False


def _op_list(trace: Trace) -> str:
    names = list(dict.fromkeys(f"aten.{n.op}" for n in trace.nodes))
    if not names:
        return "(none: forward runs no ATen op)"
    return ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
