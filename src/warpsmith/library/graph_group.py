"""The normalisations for graph.py. LayerNorm over the trailing dims: two reductions and a
pointwise op. GroupNorm on an (N, C) input (nn.Linear's output): computed in the view
(N, G, C/G), where each group is a row a row kernel reduces, and kept in that view ("lifted")
by the pointwise ops after it, so the statistics, the affine and the activations after it
are one kernel; the forward reshapes its output back to (N, C) for free.

What enters the view: the input through a "regroup" value (the GEMM family turns it into a
view of the tensor it stores: gemm.py), per-channel parameters reshaped to (G, C/G), per-row
values (N, 1) unsqueezed to (N, 1, 1). A reduction over the channels leaves the view (its
result is per row). Anything else that reads a lifted value sees the "regroup" value, which
no kernel places, and is declined.
"""

from __future__ import annotations

import math

import torch

from .graph import Val, _reduction
from .graph_view import regroup
from .ops import Unsupported
from .trace import Node


def group_norm(b, index: int, node: Node) -> None:
    args = dict(node.args)
    x = b.operand(index, "input", args["input"])
    shape, dtype = b.vals[x].shape, node.outs[0].dtype
    groups = int(args["group"])
    lifted = _lifted(shape, groups)
    red = tuple(range(2, len(lifted)))  # each group's channels (and its pixels)
    b._extras(index, node)
    xr = _regroup(b, index, x, lifted, "_in")
    mean = b.reduction(index, xr, red, True, "sum", "{acc} / {count}",
                       b.fresh(index, "_mean"), dtype)
    dev = b.put(Val(b.fresh(index, "_dev"), lifted, dtype, "op", index,
                    expr="({0} - {1}) * ({0} - {1})", operands=(xr, mean)))
    var = b.reduction(index, dev, red, True, "sum", "{acc} / {count}",
                      b.fresh(index, "_var"), dtype)
    operands = [xr, mean, var, b.operand(index, "eps", args["eps"])]
    expr = "({0} - {1}) / tl.sqrt({2} + {3})"
    for role, op in (("weight", "*"), ("bias", "+")):
        if args[role] is not None:
            w = b.operand(index, role, args[role])
            operands.append(_regroup(b, index, w, lifted[1:3] + (1,) * (len(lifted) - 3),
                                     f"_{role}"))
            expr = f"{expr} {op} {{{len(operands) - 1}}}"
    y = b.put(Val(b.fresh(index, "_gn"), lifted, dtype, "op", index, expr=expr,
                  operands=tuple(operands)))
    _lift(b, index, y, shape, dtype)


def _lifted(shape: tuple, groups: int) -> tuple:
    """(N, C) as (N, G, C/G); (N, C, …) with pixels as (N, G, C/G, pixels)."""
    lifted = (shape[0], groups, shape[1] // groups)
    return lifted if len(shape) == 2 else lifted + (math.prod(shape[2:]),)


def lifted_op(b, index: int, node: Node, expr: str, ops: tuple) -> None:
    """A pointwise op reading a lifted value: computed in the view, its operands brought in."""
    meta = node.outs[0]
    view = next(b.vals[b.lifted[o]].shape for o in ops if o in b.lifted)
    if _lifted(meta.shape, view[1]) != view:
        raise Unsupported(f"an op broadcasting a group norm's output to {meta.shape}")
    new = []
    for i, o in enumerate(ops):
        if not isinstance(o, str) or not b.vals[o].shape:
            new.append(o)  # a scalar, a 0-d tensor: broadcast as they are
        elif o in b.lifted:
            new.append(b.lifted[o])
        else:
            new.append(_bring(b, index, o, view, i) if len(view) == 3 else
                       _bring_pixels(b, index, o, meta.shape, view, i))
    shape = tuple(torch.broadcast_shapes(*(b.vals[o].shape for o in new if isinstance(o, str))))
    y = b.put(Val(b.fresh(index, "_l"), shape, meta.dtype, "op", index, expr=expr,
                  operands=tuple(new)))
    _lift(b, index, y, meta.shape, meta.dtype)


def lifted_reduce(b, index: int, node: Node, name: str, src: str) -> None:
    """A reduction over the channels of a lifted value: over the view's last two dims."""
    args = dict(node.args)
    dims = args.get("dim")
    dims = dims if isinstance(dims, tuple | list) else (dims,)
    if len(b.vals[b.lifted[src]].shape) == 4:
        return _reduce_pixels(b, index, node, name, src, dims)
    if [d % 2 for d in dims] != [1] or name in ("var", "std", "argmax", "argmin"):
        raise Unsupported("a reduction of a group norm's output other than a sum, mean, max "
                          "or min over the channels")
    b._extras(index, node)
    combine, finalize, prologue = _reduction(name, args)
    lifted = b.lifted[src]
    if prologue is not None:
        lifted = b.put(Val(b.fresh(index, "_in"), b.vals[lifted].shape, b.vals[lifted].dtype,
                           "op", index, expr=prologue, operands=(lifted,)))
    dtype = node.outs[0].dtype
    acc = b.reduction(index, lifted, (1, 2), True, combine, finalize,
                      b.fresh(index, "_red"), dtype)
    keep = bool(args.get("keepdim", False))
    b.put(Val(f"v{index}", node.outs[0].shape, dtype, "view", index, operands=(acc,),
              view=(0, 1) if keep else (0,)))


def _bring(b, index: int, vid: str, view: tuple, i: int) -> str:
    val = b.vals[vid]
    shape = (1,) * (2 - len(val.shape)) + val.shape
    if len(val.shape) > 2:
        raise Unsupported(f"an op between a group norm's output and a {val.shape} tensor")
    if shape[1] == 1:
        if len(val.shape) < 2:
            return vid  # (1,): broadcasts along the view's last dim as it is
        return b.put(Val(b.fresh(index, f"_u{i}"), (shape[0], 1, 1), val.dtype, "view", index,
                         operands=(vid,), view=(0, 1, None)))
    return _regroup(b, index, vid, val.shape[:-1] + view[1:], f"_g{i}")


def _bring_pixels(b, index: int, vid: str, out: tuple, view: tuple, i: int) -> str:
    """An operand of an op on a lifted (N, C, …) value, into (N, G, C/G, pixels): one number,
    one per image, one per channel, or one per element."""
    val = b.vals[vid]
    shape = (1,) * (len(out) - len(val.shape)) + val.shape
    if all(s == 1 for s in shape):
        if len(val.shape) <= len(view):
            return vid  # broadcasts as it is
        return b.put(Val(b.fresh(index, f"_u{i}"), (1,), val.dtype, "view", index,
                         operands=(vid,), view=(None,)))
    if len(shape) == len(val.shape) and shape[0] != 1 and all(s == 1 for s in shape[1:]):
        return b.put(Val(b.fresh(index, f"_u{i}"), (shape[0], 1, 1, 1), val.dtype, "view",
                         index, operands=(vid,), view=(0, None, None, None)))
    if shape[0] == 1 and shape[1] == out[1] and all(s == 1 for s in shape[2:]):
        return _regroup(b, index, vid, (view[1], view[2], 1), f"_g{i}")
    if shape == tuple(out):
        return _regroup(b, index, vid, view, f"_g{i}")
    raise Unsupported(f"an op between a group norm's output and a {val.shape} tensor")


def _reduce_pixels(b, index: int, node: Node, name: str, src: str, dims) -> None:
    """A reduction of a lifted (N, C, …) value over everything but the batch (one number per
    image) or over the pixels (one per channel, still lifted)."""
    args = dict(node.args)
    shape, lifted = b.vals[src].shape, b.lifted[src]
    dims = sorted({d % len(shape) for d in dims})
    every = dims == list(range(1, len(shape)))
    if name in ("var", "std", "argmax", "argmin") or \
            not (every or dims == list(range(2, len(shape)))):
        raise Unsupported("a reduction of a group norm's output other than a sum, mean, max "
                          "or min over everything but the batch, or over the pixels")
    b._extras(index, node)
    combine, finalize, prologue = _reduction(name, args)
    if prologue is not None:
        lifted = b.put(Val(b.fresh(index, "_in"), b.vals[lifted].shape, b.vals[lifted].dtype,
                           "op", index, expr=prologue, operands=(lifted,)))
    meta = node.outs[0]
    acc = b.reduction(index, lifted, (1, 2, 3) if every else (3,), True, combine, finalize,
                      b.fresh(index, "_red"), meta.dtype)
    if every:
        b.put(Val(f"v{index}", meta.shape, meta.dtype, "view", index, operands=(acc,),
                  view=(0,) + (None,) * (len(meta.shape) - 1)))
    else:
        _lift(b, index, acc, meta.shape, meta.dtype)


def _regroup(b, index: int, vid: str, shape: tuple, part: str, prefix: str = "") -> str:
    """vid's elements viewed as `shape`: a leaf's reshape is a leaf (the forward binds it); a
    computed value's is a "regroup" only the GEMM family places, as a view of what it stores.
    `prefix`: an index over "{h}" taken before the view (the whole windows of a pool)."""
    val = b.vals[vid]
    sizes = regroup(val.shape, shape)
    if val.kind == "leaf":
        return b.put(Val(b.fresh(index, part), shape, val.dtype, "leaf", -1,
                         source=("reshape", vid, sizes, prefix)))
    return b.put(Val(b.fresh(index, part), shape, val.dtype, "regroup", index, operands=(vid,),
                     span=sizes, expr=prefix))


def _lift(b, index: int, y: str, shape: tuple, dtype: str) -> None:
    """v{index} is y seen as (N, C): what reads it through the hooks stays in the view."""
    b.lifted[f"v{index}"] = y
    b.put(Val(f"v{index}", shape, dtype, "regroup", index, operands=(y,),
              span=regroup(b.vals[y].shape, shape)))


def layer_norm(self, index: int, node: Node) -> None:
    """(x − mean) · rsqrt(var + eps) · w + b over the trailing normalized_shape dims."""
    args = dict(node.args)
    x = self.operand(index, "input", args["input"])
    shape, dtype = self.vals[x].shape, node.outs[0].dtype
    dims = tuple(range(len(shape) - len(args["normalized_shape"]), len(shape)))
    self._extras(index, node)
    mean = self.reduction(index, x, dims, True, "sum", "{acc} / {count}",
                          self.fresh(index, "_mean"), dtype)
    dev = self.put(Val(self.fresh(index, "_dev"), shape, dtype, "op", index,
                       expr="({0} - {1}) * ({0} - {1})", operands=(x, mean)))
    var = self.reduction(index, dev, dims, True, "sum", "{acc} / {count}",
                         self.fresh(index, "_var"), dtype)
    eps = self.operand(index, "eps", args["eps"])
    expr, operands = "({0} - {1}) / tl.sqrt({2} + {3})", [x, mean, var, eps]
    for role in ("weight", "bias"):
        if args[role] is not None:
            operands.append(self.operand(index, role, args[role]))
            expr = f"{expr} * {{{len(operands) - 1}}}" if role == "weight" else \
                f"{expr} + {{{len(operands) - 1}}}"
    self.put(Val(f"v{index}", shape, dtype, "op", index, expr=expr, operands=tuple(operands)))


WRITERS = {"native_group_norm": group_norm, "native_layer_norm": layer_norm}
