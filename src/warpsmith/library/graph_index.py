"""Indexing along one dim by a tensor of positions, as model code writes it (issue 30):
`gather` (the log-probabilities of sampled tokens), `scatter` of a value or a tensor (label
smoothing's target distribution), `nll_loss_forward` (cross-entropy after its log-softmax,
with `ignore_index`). Each is written as pointwise ops and reductions over a positions leaf
the forward makes with `torch.arange` along that dim, so every graph family places them:

    gather(x, d, i)        Σ_d where(pos_d == i, x, 0)         (keepdim: i's shape)
    scatter(x, d, i, v)    where(pos_d == i, v, x)
    nll_loss(x, t)         −Σ_{n,c} where(c == t_n ≠ ignore, x, 0) / Σ_{n,c} (c == t_n ≠ ignore)

A gather costs a pass over the dim, which a row kernel makes anyway (the log-softmax before
it). Only one position per row is written: the index has size 1 along the dim and the
source's sizes elsewhere; other index shapes are declined."""

from __future__ import annotations

from .graph import LOSS_REDUCTION, Val, _Builder
from .graph_parts import _bound
from .ops import Unsupported
from .trace import Node


def _positions(b: _Builder, index: int, shape: tuple[int, ...], dim: int) -> str:
    """A leaf 0 … shape[dim]-1 made in forward, viewed to lie along `dim`."""
    n = shape[dim]
    leaf = b.put(Val(b.fresh(index, "_pos"), (n,), "int64", "leaf", -1,
                     source=("arange", "0", _bound(b, n), "1", "int64")))
    if dim == len(shape) - 1:
        return leaf
    along = tuple(n if d == dim else 1 for d in range(len(shape)))
    return b.put(Val(b.fresh(index, "_along"), along, "int64", "view", index, operands=(leaf,),
                     view=tuple(0 if d == dim else None for d in range(len(shape)))))


def _one_per_row(b: _Builder, index: int, node: Node) -> tuple[str, int, str]:
    """(source id, dim, index id) for an index with size 1 along dim, else declined."""
    src = b.operand(index, "self", node.arg("self"))
    idx = b.operand(index, "index", node.arg("index"))
    shape, ishape = b.vals[src].shape, b.vals[idx].shape
    dim = node.arg("dim") % len(shape)
    if len(ishape) != len(shape) or ishape[dim] != 1 or any(
            s != t for d, (s, t) in enumerate(zip(shape, ishape, strict=True)) if d != dim):
        raise Unsupported(f"{node.name} with an index of shape {ishape} into {shape} (one "
                          "position per row along the dim is written)")
    return src, dim, idx


def _gather(b: _Builder, index: int, node: Node) -> None:
    src, dim, idx = _one_per_row(b, index, node)
    shape, dtype = b.vals[src].shape, node.outs[0].dtype
    pos = _positions(b, index, shape, dim)
    picked = b.put(Val(b.fresh(index, "_pick"), shape, dtype, "op", index,
                       expr="tl.where({1} == {2}, {0}, 0.0)", operands=(src, pos, idx)))
    b.reduction(index, picked, (dim,), True, "sum", "{acc}", f"v{index}", dtype)


def _scatter(b: _Builder, index: int, node: Node) -> None:
    args = dict(node.args)
    if args.get("reduce") is not None:
        raise Unsupported("scatter with reduce=")
    src, dim, idx = _one_per_row(b, index, node)
    shape, dtype = b.vals[src].shape, node.outs[0].dtype
    value = b.operand(index, "src", args["src"] if "src" in args else args["value"])
    if isinstance(value, str) and b.vals[value].shape != b.vals[idx].shape:
        raise Unsupported("scatter of a tensor not shaped like its index")
    pos = _positions(b, index, shape, dim)
    b.put(Val(f"v{index}", shape, dtype, "op", index, expr="tl.where({1} == {2}, {3}, {0})",
              operands=(src, pos, idx, value)))


def _nll_loss(b: _Builder, index: int, node: Node) -> None:
    """nll_loss_forward over (N, C) log-probabilities (or (C,)), without class weights."""
    if node.arg("weight") is not None:
        raise Unsupported("nll_loss with class weights")
    x = b.operand(index, "self", node.arg("self"))
    t = b.operand(index, "target", node.arg("target"))
    shape = b.vals[x].shape
    if len(shape) != 2 or b.vals[t].shape != shape[:1]:
        raise Unsupported(f"nll_loss over {shape} (rows of classes, one target a row)")
    nll(b, index, node, x, t, f"v{index}")


def nll(b: _Builder, index: int, node: Node, x: str, t: str, vid: str) -> None:
    """nll_loss_forward's values over (..., C) log-probabilities x and (...) targets t (a
    reshape to (N, C) before it kept at x's shape: graph_move.py), the result named vid."""
    shape, dtype = b.vals[x].shape, node.outs[0].dtype
    last = len(shape) - 1
    rows = b.put(Val(b.fresh(index, "_t"), shape[:last] + (1,), b.vals[t].dtype, "view",
                     index, operands=(t,), view=(*range(last), None)))
    # where the position is the target, "the position is not ignore_index" is "the target
    # is not": both sides of the & then vary along the row (the interpreter's & of a row's
    # one number with a vector fails)
    ignore = float(node.arg("ignore_index"))
    pos = _positions(b, index, shape, last)
    picked = b.put(Val(b.fresh(index, "_pick"), shape, dtype, "op", index,
                       expr=f"tl.where(({{1}} == {{2}}) & ({{1}} != {ignore!r}), -{{0}}, 0.0)",
                       operands=(x, pos, rows)))
    kind = LOSS_REDUCTION.get(node.arg("reduction"))
    b.extra[f"v{index}_1"] = (index, node.op)  # total_weight: not made
    if kind is None:
        b.reduction(index, picked, (last,), False, "sum", "{acc}", vid, dtype)
        return
    # both sums over every element, so one kernel's two accumulators make them
    every = tuple(range(len(shape)))
    total = b.reduction(index, picked, every, False, "sum", "{acc}", b.fresh(index, "_sum"),
                        dtype)
    if kind == "sum":
        b.vals[vid] = b.vals.pop(total)
        b.vals[vid].id = vid
        return
    hits = b.put(Val(b.fresh(index, "_hit"), shape, dtype, "op", index,
                     expr=f"tl.where(({{0}} == {{1}}) & ({{0}} != {ignore!r}), 1.0, 0.0)",
                     operands=(pos, rows)))
    count = b.reduction(index, hits, every, False, "sum", "{acc}", b.fresh(index, "_count"),
                        dtype)
    b.put(Val(vid, (), dtype, "op", index, expr="{0} / {1}", operands=(total, count)))


def _triangle(keep: str):
    """triu/tril(x, k): x where the column less the row is >= k (triu) or <= k (tril), else
    0 (False for a mask: the causal mask of `ones(S, S, dtype=bool).triu(1)`), the row and
    column positions leaves along the last two dims."""
    def write(b: _Builder, index: int, node: Node) -> None:
        x = b.operand(index, "self", node.arg("self"))
        shape, dtype = b.vals[x].shape, node.outs[0].dtype
        if len(shape) < 2:
            raise Unsupported(f"{node.name} of a {len(shape)}-D tensor")
        rows = _positions(b, index, shape, len(shape) - 2)
        cols = _positions(b, index, shape, len(shape) - 1)
        inside = f"({{2}} - {{1}} {keep} {int(node.arg('diagonal'))})"
        expr = f"{inside} & ({{0}} != 0)" if dtype == "bool" else f"tl.where({inside}, {{0}}, 0.0)"
        b.put(Val(f"v{index}", shape, dtype, "op", index, expr=expr, operands=(x, rows, cols)))
    return write


WRITERS = {"gather": _gather, "scatter": _scatter, "nll_loss_forward": _nll_loss,
           "triu": _triangle(">="), "tril": _triangle("<=")}  # ones/zeros: graph_scatter
