"""Graph families: kernel templates that place part of a traced graph (graph.py) into one or
more Triton kernels. One family is one module holding its matcher, its typed parameters and
its renderer; this registry lists them in the order the generator (generator.py) tries them.

    match(graph, ctx)    a tuple of kernel parameters (dataclasses), a Decline, or None when
                         the graph is not of the family's kind at all
    render(kernel, tune) a Piece: the kernel's source and the forward's lines that launch it
    knobs                the tuner's knobs with their defaults (names unique across families)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..errors import UsageError


@dataclass(frozen=True)
class Piece:
    kernel: str  # @triton.jit functions
    launch: tuple[str, ...]  # forward lines, unindented


@dataclass(frozen=True)
class Context:
    arg_names: tuple[str, ...]  # the reference forward's parameter names
    leaves: dict  # leaf id -> (kernel name, forward expression)


class GraphFamily(Protocol):
    name: str
    knobs: dict[str, int]

    def match(self, graph, ctx: Context): ...

    def render(self, kernel, tune: dict[str, int]) -> Piece: ...


def _registry() -> dict[str, GraphFamily]:
    from .conv import Conv
    from .gemm import Gemm
    from .pointwise import Pointwise
    from .row_reduce import RowReduce
    from .scan import Scan
    from .scatter import Scatter
    from .take import Take
    from .topk import TopK
    from .window import WindowFamily

    # A convolution or a product first: only the conv and GEMM families place one, and they
    # hand what follows the stored output back to the others; a pool over a stored tensor
    # likewise. Then reductions and scans: a graph with none is not their kind (None), and
    # pointwise refuses both. A top-k likewise stores its values and positions first, and
    # an index_add its sums, an index by positions what it gathers.
    return {f.name: f for f in (Conv(), Gemm(), WindowFamily(), TopK(), Scatter(), Take(),
                                RowReduce(), Scan(), Pointwise())}


GRAPH_FAMILIES: dict[str, GraphFamily] = _registry()


def graph_family(name: str) -> GraphFamily:
    if name not in GRAPH_FAMILIES:
        raise UsageError(f"unknown graph family {name!r}; choose one of "
                         f"{', '.join(GRAPH_FAMILIES)}")
    return GRAPH_FAMILIES[name]
