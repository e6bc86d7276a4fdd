"""The one contract every library family keeps, exact or graph. A family is one module: its
typed parameters (frozen dataclasses), its matcher and its renderer; registry.py lists every
family once, in the order they are tried.

    name                 unique across all families; the label a candidate's header carries
    reads                "trace": an exact family, matched against one shape's whole traced
                         forward (match.py's helpers), its parameters unified across shapes
                         (match.unify) and rendered into a complete candidate file (str).
                         "graph": a graph family, matched against part of a traced graph
                         (graph.py) and rendered into a Piece the generator assembles
    knobs                the tuner's knobs with their defaults (graph families' names unique
                         across graph families: one candidate may hold several of them)
    match(subject, ctx)  the parameters (an exact family: a match.Params subclass; a graph
                         family: a tuple of kernel records), a refusal (match.NoMatch or
                         graph.Decline: the pattern fits, a limitation declines it) or None
                         when the subject is not its kind. ctx is None for an exact family
                         (its trace holds all it reads)
    render(params, tune) the source: a candidate file (str) or a Piece
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol


@dataclass(frozen=True)
class Piece:
    kernel: str  # @triton.jit functions
    launch: tuple[str, ...]  # forward lines, unindented


@dataclass(frozen=True)
class Context:
    arg_names: tuple[str, ...]  # the reference forward's parameter names
    leaves: dict  # leaf id -> (kernel name, forward expression)
    # the graph families in the order they are tried: a stored-value family places what
    # follows its output with them (registry.py's list, handed down so no family imports it)
    families: tuple = ()


class Family(Protocol):
    name: str
    reads: Literal["trace", "graph"]
    knobs: dict[str, int]

    def match(self, subject: Any, ctx: Context | None) -> Any: ...

    def render(self, params: Any, tune: dict[str, int]) -> str | Piece: ...
