"""graph.py's writers for a sum by position (issue 30): `index_add` (a segment sum: rows
added into the slots their ids name, `sums.index_add_(0, ids, x)`), and the filled tensors
such code starts from (`torch.zeros`, `ones`, `full`; the `*_like` ones are graph_scan's).

A fill is an "op" with a constant expression and no operands, its sizes (`span`) over the
forward's inputs or constructor arguments (graph_parts._bound), so a kernel that allocates
it follows the verifier's twin. An index_add is a "scatter" value over (destination, ids,
source), its dim in `dims`, which only the scatter family (scatter.py) places: a kernel of
atomic adds into a copy of the destination, like a product's stored output.
"""

from __future__ import annotations

from .graph import Val, _Builder
from .graph_parts import _bound
from .match import Lit
from .ops import Unsupported
from .trace import Node

FILLS = {"zeros": 0.0, "ones": 1.0}  # zeros_like and its kin: graph_scan._filled


def _fill(b: _Builder, index: int, node: Node) -> None:
    value = FILLS.get(node.name)
    value = node.arg("fill_value") if value is None else value
    meta = node.outs[0]
    if meta.dtype == "bool" and isinstance(value, bool | int | float):
        # a mask (graph_index's triangles of `ones(S, S, dtype=bool)`): True or False
        b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr=repr(bool(value))))
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Unsupported(f"{node.name} with the fill value {value!r}")
    sizes = tuple(_bound(b, s) for s in meta.shape)
    # through operand(): a fill that follows a size is read at run time (sizes.py)
    given = b.operand(index, "fill_value", float(value))
    if isinstance(given, Lit):
        b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr=repr(float(value)),
                  span=sizes))
    else:
        b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr="{0}",
                  operands=(given,), span=sizes))


def fill_value(vals: dict, vid: str) -> str | None:
    """The constant `vid` holds where it is a fill, or copies of one (detach, a cast)."""
    val = vals[vid]
    while val.kind == "op" and val.expr == "{0}" and len(val.operands) == 1 \
            and isinstance(val.operands[0], str):
        val = vals[val.operands[0]]
    if val.kind != "op" or val.operands:
        return None
    try:
        return repr(float(val.expr))
    except ValueError:
        return None


def fill_sizes(vals: dict, vid: str) -> tuple[str, ...] | None:
    """A fill's sizes over "{0}", "{1}" (the forward's inputs) where its writer kept them."""
    val = vals[vid]
    while val.operands and isinstance(val.operands[0], str):
        val = vals[val.operands[0]]
    return val.span or None


def _index_add(b: _Builder, index: int, node: Node) -> None:
    dst = b.operand(index, "self", node.arg("self"))
    ids = b.operand(index, "index", node.arg("index"))
    src = b.operand(index, "source", node.arg("source"))
    shape, dim = b.vals[dst].shape, node.arg("dim") % max(len(b.vals[dst].shape), 1)
    if node.arg("alpha") != 1:
        raise Unsupported("index_add with alpha other than 1")
    if len(b.vals[ids].shape) != 1 or len(b.vals[src].shape) != len(shape) or any(
            s != t for d, (s, t) in enumerate(zip(shape, b.vals[src].shape, strict=True))
            if d != dim):
        raise Unsupported(f"index_add of a {b.vals[src].shape} source by "
                          f"{b.vals[ids].shape} ids into {shape} (1-D ids, the source "
                          "shaped like the destination but along the dim)")
    meta = node.outs[0]
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "scatter", index,
              operands=(dst, ids, src), dims=(dim,)))


WRITERS = {"zeros": _fill, "ones": _fill, "full": _fill, "index_add": _index_add}
