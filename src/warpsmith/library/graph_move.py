"""Reshapes in the middle of a graph, for graph_view.py (issue 30). A kernel indexes its
values dim by dim, so a reshape that merges or splits contiguous dims of a computed value is
moved to where it costs no index arithmetic:

- up to the leaves: view(f(a, b)) is f(view(a), view(b)) when f is pointwise, so the value is
  computed at the new shape from reshaped leaves (gated RMSNorm's x * silu(z) viewed as
  groups, attention's q.float() viewed as (B*H, S, D)). An operand broadcast along a group of
  dims that the reshape merges or splits enters as size-1 dims there; a permutation of an
  operand (k.float().transpose(-1, -2)) is bound in forward as the leaf permuted, then
  reshaped;
- down to the output ("held"): the value stays at its source's shape, the pointwise ops that
  read it are computed there (their other operands moved up the same way, the other way
  round), and the forward reshapes the kernels' output for free (the grouped norm viewed back
  to (B, S, D), then times a (D,) weight seen as (G, D/G)). A softmax over whole groups of
  the reshape and an NLL loss over its classes follow it too (a causal LM's (B*S', V) logits
  kept at (B, S', V)); a product reads it as the "regroup" it is (gemm.py writes its source
  to a temporary). After a product, a convolution or a pool, a reshape of what that kernel
  stores stays a regroup (a view of the stored tensor); only one of a later value is held.

Anything else between the reshape and its leaves, or reading a held value, is declined.
"""

from __future__ import annotations

from .graph import LOSS_REDUCTION, Val
from .graph_view import permuted, regroup, turned_leaf
from .ops import Unsupported

# the nodes other than pointwise ops and reshapes that follow a held value (held_node)
HELD_READERS = ("sum", "mean", "amax", "amin", "_softmax", "_log_softmax", "nll_loss_forward")


class _Stuck(Exception):
    """A value of the cone that cannot be moved across the reshape."""


def groups(src: tuple[int, ...], out: tuple[int, ...]) -> list[tuple[tuple, tuple]] | None:
    """(source dims, out dims) with equal products, in order: the reshape merges or splits
    only inside a group. None where src and out do not regroup that way."""
    found, i, j = [], 0, 0
    while i < len(src) and j < len(out):
        si, sj, ps, po = i, j, src[i], out[j]
        i, j = i + 1, j + 1
        while ps != po:
            if ps < po and i < len(src):
                ps, i = ps * src[i], i + 1
            elif po < ps and j < len(out):
                po, j = po * out[j], j + 1
            else:
                return None
        found.append((tuple(range(si, i)), tuple(range(sj, j))))
    if any(src[d] != 1 for d in range(i, len(src))) or any(out[d] != 1 for d in range(j, len(out))):
        return None
    if i < len(src) or j < len(out):  # trailing size-1 dims: a group of their own
        found.append((tuple(range(i, len(src))), tuple(range(j, len(out)))))
    return found


def moved_shape(shape: tuple, src: tuple, out: tuple, grouping: list) -> tuple | None:
    """A value broadcast against `src` (right-aligned), at the reshape's `out`: each group
    whole (its out sizes) or all 1 (1s). None where a group is partly broadcast."""
    if len(shape) > len(src):
        return None
    padded = (1,) * (len(src) - len(shape)) + tuple(shape)
    moved = []
    for sd, od in grouping:
        if all(padded[d] == src[d] for d in sd):
            moved += [out[d] for d in od]
        elif all(padded[d] == 1 for d in sd):
            moved += [1] * len(od)
        else:
            return None
    return tuple(moved)


class _Mover:
    """Rebuilds a pointwise cone at the reshaped shape; new values are kept aside and only
    put into the builder when the whole cone moved."""

    def __init__(self, b, index: int, src: tuple, out: tuple, tag: str):
        self.b, self.index, self.src, self.out, self.tag = b, index, src, out, tag
        self.grouping = groups(src, out)
        self.made: dict[str, str] = {}
        self.new: list[Val] = []
        self.trace = b.trace

    def move(self, vid: str, name: str | None = None) -> str:
        if self.grouping is None:
            raise _Stuck
        if vid in self.made:
            return self.made[vid]
        val = self.b.vals[vid]
        shape = moved_shape(val.shape, self.src, self.out, self.grouping)
        if shape is None:
            raise _Stuck
        if all(s == 1 for s in val.shape) and len(val.shape) <= len(self.out):
            moved = vid  # one number: broadcasts as it is
        elif val.kind == "leaf":
            moved = vid if shape == val.shape else self._leaf(val, shape)
        elif val.kind == "op":
            ops = tuple(self.move(o) if isinstance(o, str) else o for o in val.operands)
            moved = self._put(Val(name or f"{vid}_{self.tag}{self.index}", shape, val.dtype,
                                  "op", val.node, expr=val.expr, operands=ops))
        elif val.kind == "view" and shape == self.out:
            found = permuted(self.b.vals, vid)
            if found is None:
                raise _Stuck
            moved = self._turned(found[0], found[1], name or f"{vid}_{self.tag}{self.index}")
        else:
            raise _Stuck
        self.made[vid] = moved
        return moved

    def _turned(self, vid: str, order: tuple, name: str) -> str:
        """`vid` permuted by `order`, then reshaped to the reshape's shape: a leaf the
        forward binds so (attention's k.transpose(-1, -2) as (B*H, D, S)), or an op whose
        operands all have its shape, computed from theirs (k.float() transposed)."""
        val = self.b.vals[vid]
        if val.kind == "leaf":
            try:
                return self._put(turned_leaf(name, val, order, self.out, val.dtype,
                                             self._inputs(), self.trace.init_inputs))
            except Unsupported as e:
                raise _Stuck from e
        if val.kind != "op" or any(isinstance(o, str) and self.b.vals[o].shape != val.shape
                                   for o in val.operands):
            raise _Stuck
        ops = tuple(self._turned(o, order, f"{o}_t{self.tag}{self.index}")
                    if isinstance(o, str) else o for o in val.operands)
        return self._put(Val(name, self.out, val.dtype, "op", val.node, expr=val.expr,
                             operands=ops))

    def _inputs(self) -> list:
        return [(n, m.shape) for n, m in zip(self.trace.arg_names, self.trace.inputs,
                                             strict=False) if m is not None]

    def _leaf(self, val: Val, shape: tuple) -> str:
        undone = _unreshaped(self.b.vals, val, shape)
        if undone is not None:  # a leaf the forward reshaped, read at its own shape again
            return undone
        try:
            sizes = regroup(val.shape, shape, self._inputs(), self.trace.init_inputs)
        except Unsupported as e:
            raise _Stuck from e
        return self._put(Val(f"{val.id}_{self.tag}{self.index}", shape, val.dtype, "leaf", -1,
                             source=("reshape", val.id, sizes)))

    def _put(self, val: Val) -> str:
        self.new.append(val)
        return val.id

    def commit(self) -> None:
        for val in self.new:
            self.b.put(val)
        self.b.moved = True  # the values it was moved from may now be read by nothing


def _unreshaped(vals: dict, val: Val, shape: tuple) -> str | None:
    """The leaf that `val` is plain reshapes of (no narrow, permute or expand) and that has
    `shape`: a causal LM's shifted labels before their view(-1). None where there is none."""
    while val.kind == "leaf" and val.source[0] == "reshape" and not any(val.source[3:]):
        val = vals[val.source[1]]
        if val.shape == shape:
            return val.id
    return None


def pushed(b, index: int, src: str, shape: tuple) -> bool:
    """v{index}, src reshaped to `shape`, computed at that shape from reshaped leaves; False
    (nothing added) where src's cone is not pointwise ops of leaves."""
    mover = _Mover(b, index, b.vals[src].shape, shape, "r")
    try:
        top = mover.move(src, name=f"v{index}")
    except _Stuck:
        return False
    mover.commit()
    if top != f"v{index}":  # src is a leaf broadcast as it is, or already at the shape
        meta = b.vals[top]
        b.put(Val(f"v{index}", shape, meta.dtype, "op", index, expr="{0}", operands=(top,)))
    return True


def hold(b, index: int, src: str, shape: tuple, dtype: str, sizes: tuple) -> bool:
    """v{index}, src reshaped to `shape`, held at src's shape: the ops reading it follow
    (held_op), and an output that is held is reshaped by the forward."""
    if groups(b.vals[src].shape, shape) is None:
        return False
    b.held[f"v{index}"] = src
    b.moved = True
    b.put(Val(f"v{index}", shape, dtype, "regroup", index, operands=(src,), span=sizes))
    return True


def held_node(b, index: int, node) -> None:
    """A sum, mean, amax, amin, softmax, log-softmax or NLL loss reading a held value,
    computed at the held shape where its dims are whole groups of the reshape (a causal LM's
    (B*S', V) logits: the log-softmax over V of (B, S', V), the loss over every element);
    held again where its result keeps the reshape's dims. Anything else that reads a held
    value is declined."""
    from .graph import _dims

    x = b.operand(index, "self", node.arg("self")) if "self" in dict(node.args) else None
    if x in b.held and node.name in ("view", "_unsafe_view", "reshape"):
        return _reheld(b, index, node, b.held[x])
    if x not in b.held or node.name not in HELD_READERS:
        raise Unsupported("reads a reshape in the middle of the graph, which is kept at its "
                          "source's shape for pointwise ops, reductions over whole groups "
                          "of it, softmaxes and an NLL loss only")
    at, shape = b.vals[b.held[x]].shape, b.vals[x].shape
    grouping = groups(at, shape)
    if node.name == "nll_loss_forward":
        return _held_nll(b, index, node, x, at, shape, grouping)
    if node.name in ("sum", "mean", "amax", "amin"):
        return _held_reduce(b, index, node, x, at, shape, grouping)
    dims = _whole(grouping, _dims(node.arg("dim"), len(shape)))
    if dims is None or node.arg("half_to_float"):
        raise Unsupported(f"a softmax over dims of a reshape's {shape} that are not whole "
                          f"groups of its source's {at}")
    from .graph import softmax

    meta = node.outs[0]
    softmax(b, index, b.held[x], dims, node.name == "_log_softmax", meta.dtype, f"v{index}_h")
    hold(b, index, f"v{index}_h", meta.shape, meta.dtype, b.vals[x].span)


def _held_reduce(b, index: int, node, x: str, at: tuple, shape: tuple, grouping: list
                 ) -> None:
    """A sum, mean, amax or amin over whole groups of the reshape: over their source dims."""
    from .graph import _dims, _reduction

    args, meta = dict(node.args), node.outs[0]
    dims = _whole(grouping, _dims(args.get("dim"), len(shape)))
    if not dims:
        raise Unsupported(f"a reduction over dims of a reshape's {shape} that are not whole "
                          f"groups of its source's {at}")
    combine, finalize, _ = _reduction(node.name, args)
    y = b.reduction(index, b.held[x], dims, bool(args.get("keepdim", False)), combine,
                    finalize, f"v{index}_h", meta.dtype)
    made = b.vals[y].shape
    if made == meta.shape:  # the reduced dims were all the reshape regrouped
        b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr="{0}", operands=(y,)))
        return
    sizes = regroup(made, meta.shape, self_inputs(b), b.trace.init_inputs)
    if not hold(b, index, y, meta.shape, meta.dtype, sizes):
        raise Unsupported(f"a reduction of a reshape to {meta.shape} that keeps no groups")


def _reheld(b, index: int, node, src: str) -> None:
    """A reshape of a held value is one of the value it holds: none where it restores that
    value's shape (the grouped norm viewed back before the weight's product)."""
    meta = node.outs[0]
    if meta.shape != b.vals[src].shape:
        from .graph_view import reshape

        return reshape(b, index, node, src)
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr="{0}", operands=(src,)))


def _whole(grouping: list, dims: tuple) -> tuple | None:
    """The source dims of the reshape's `dims`, where these are whole groups; else None."""
    found = []
    for sd, od in grouping:
        if set(od) <= set(dims):
            found += sd
        elif set(od) & set(dims):
            return None
    return tuple(found)


def _held_nll(b, index: int, node, x: str, at: tuple, shape: tuple, grouping: list) -> None:
    """nll_loss over a held (N, C): C a group of its own, the targets (N,) moved to the
    held shape's other dims."""
    from .graph_index import nll

    if len(shape) != 2 or node.arg("weight") is not None or \
            _whole(grouping, (1,)) != (len(at) - 1,):
        raise Unsupported(f"an NLL loss over a reshape's {shape} whose classes are not the "
                          f"last dim of its source's {at}")
    t = b.operand(index, "target", node.arg("target"))
    mover = _Mover(b, index, shape[:1], at[:-1], "h")
    try:
        moved = mover.move(t)
    except _Stuck:
        raise Unsupported("an NLL loss whose targets are not values of leaves") from None
    mover.commit()
    if LOSS_REDUCTION.get(node.arg("reduction")) is None:
        nll(b, index, node, b.held[x], moved, f"v{index}_h")
        sizes = regroup(at[:-1], shape[:1], self_inputs(b), b.trace.init_inputs)
        hold(b, index, f"v{index}_h", node.outs[0].shape, node.outs[0].dtype, sizes)
    else:  # one number: no reshape left
        nll(b, index, node, b.held[x], moved, f"v{index}")


def self_inputs(b) -> list:
    return [(n, m.shape) for n, m in zip(b.trace.arg_names, b.trace.inputs, strict=False)
            if m is not None]


def storable(b, vid: str) -> bool:
    """Whether a product's, convolution's or pool's kernel stores `vid` (a reshape of it is
    then a view of what it stores): that value, a regroup of one, or an op at its shape
    after it (its epilogue)."""
    val = b.vals[vid]
    if val.kind in ("gemm", "conv", "pool"):
        return True
    if val.kind == "regroup":
        return storable(b, val.operands[0])
    computed = [o for o in val.operands if isinstance(o, str) and b.vals[o].kind != "leaf"]
    shapes = {v.shape for v in b.vals.values() if v.kind in ("gemm", "conv", "pool")}
    return val.kind in ("op", "view") and bool(computed) and \
        (val.kind == "view" or val.shape in shapes) and all(storable(b, o) for o in computed)


def held_op(b, index: int, node, expr: str, ops: tuple) -> None:
    """A pointwise op reading a held value: at the held shape, its other operands moved up to
    it (the reshape read the other way round); held again."""
    meta = node.outs[0]
    held = {b.vals[b.held[o]].shape for o in ops if o in b.held}
    if len(held) != 1:
        raise Unsupported("a pointwise op reading values held at different shapes")
    at = held.pop()
    mover = _Mover(b, index, meta.shape, at, "h")
    mover.made = {o: b.held[o] for o in ops if o in b.held}
    try:
        if any(b.vals[o].shape != meta.shape for o in ops if o in b.held):
            raise _Stuck  # the held value broadcast to a larger shape
        moved = tuple(mover.move(o) if isinstance(o, str) else o for o in ops)
    except _Stuck:
        raise Unsupported(f"an op on a reshape in the middle of the graph, at {meta.shape}, "
                          "whose operands are not pointwise values of leaves broadcast along "
                          "whole groups of the reshape") from None
    mover.commit()
    y = b.put(Val(f"v{index}_h", at, meta.dtype, "op", index, expr=expr, operands=moved))
    inputs = [(n, m.shape) for n, m in zip(b.trace.arg_names, b.trace.inputs, strict=False)
              if m is not None]
    hold(b, index, y, meta.shape, meta.dtype,
         regroup(at, meta.shape, inputs, b.trace.init_inputs))
