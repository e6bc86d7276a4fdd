"""More of graph.py's node writers: the scans and the index ops around them (flip, slice,
cat, select, the filled tensors), logsumexp written out as two reductions and batch norm as
a normalisation per channel.

Only the scan family (scan.py) places "scan", "flip", "slice", "cat" and "select" values;
layout.py refuses them everywhere else, so a pointwise or row kernel never ignores a flip.
"""

from __future__ import annotations

from .graph import Val, _Builder, _dims
from .graph_view import empty
from .match import Lit
from .ops import Unsupported
from .trace import Node


def _scan(b: _Builder, index: int, node: Node) -> None:
    src = b.operand(index, "self", node.arg("self"))
    meta = node.outs[0]
    dim = node.arg("dim") % max(len(meta.shape), 1)
    combine = "sum" if node.name == "cumsum" else "prod"
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "scan", index, operands=(src,),
              combine=combine, dims=(dim,)))


def _flip(b: _Builder, index: int, node: Node) -> None:
    src = b.operand(index, "self", node.arg("self"))
    meta = node.outs[0]
    dims = tuple(sorted({d % max(len(meta.shape), 1) for d in node.arg("dims")}))
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "flip", index, operands=(src,), dims=dims))


def _slice(b: _Builder, index: int, node: Node) -> None:
    """Kept as (start, dropped at the end): x[:, :n-1] is then the same structure at every n."""
    src = b.operand(index, "self", node.arg("self"))
    length = b.vals[src].shape[node.arg("dim") % len(b.vals[src].shape)]
    if node.arg("step") != 1:
        raise Unsupported(f"a slice with step {node.arg('step')} (step 1 is placed)")
    start, end = (_clamp(node.arg(k), default, length)
                  for k, default in (("start", 0), ("end", length)))
    meta = node.outs[0]
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "slice", index, operands=(src,),
              dims=(node.arg("dim") % len(meta.shape),), span=(start, length - max(end, start))))


def _clamp(value, default: int, length: int) -> int:
    value = default if value is None else value
    value = value + length if value < 0 else value
    return min(max(value, 0), length)


def _select(b: _Builder, index: int, node: Node) -> None:
    src = b.operand(index, "self", node.arg("self"))
    meta = node.outs[0]
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "select", index, operands=(src,),
              dims=(node.arg("dim"),), span=(node.arg("index"),)))


def _filled(value: float):
    """zeros_like, ones_like: a constant; its source only gave the shape."""
    def write(b: _Builder, index: int, node: Node) -> None:
        fill = value if value is not None else node.arg("fill_value")
        if isinstance(fill, bool) or not isinstance(fill, int | float):
            raise Unsupported(f"fill value {fill!r} is not a number")
        meta = node.outs[0]
        # through operand(): a fill that follows a size (label smoothing's eps / (V - 1))
        # is read at run time (sizes.py), not written in
        given = b.operand(index, "fill_value", float(fill))
        if isinstance(given, Lit):  # a constant, as the scan family looks for it
            b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr=repr(float(fill))))
        else:
            b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr="{0}",
                      operands=(given,)))
    return write


def _cat(b: _Builder, index: int, node: Node) -> None:
    parts = tuple(b.operand(index, f"tensors[{i}]", t)
                  for i, t in enumerate(node.arg("tensors")))
    meta = node.outs[0]
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "cat", index, operands=parts,
              dims=(node.arg("dim") % len(meta.shape),)))


def _stack(b: _Builder, index: int, node: Node) -> None:
    """torch.stack: the cat of its tensors, each unsqueezed at the dim (a view), so each
    is a part one long (int4's low and high nibbles interleaved by the view after it)."""
    meta = node.outs[0]
    dim = node.arg("dim") % len(meta.shape)
    parts = []
    for k, t in enumerate(node.arg("tensors")):
        part = b.operand(index, f"tensors[{k}]", t)
        shape = b.vals[part].shape
        shown = (*range(dim), None, *range(dim, len(shape)))
        parts.append(b.put(Val(f"v{index}_s{k}", (*shape[:dim], 1, *shape[dim:]), meta.dtype,
                               "view", index, operands=(part,), view=shown)))
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "cat", index, operands=tuple(parts),
              dims=(dim,)))


def _logsumexp(b: _Builder, index: int, node: Node) -> None:
    """m + log Σ exp(x − m), m the max with ±inf replaced by 0, as torch computes it (a row
    of -inf gives -inf, not nan)."""
    x = b.operand(index, "self", node.arg("self"))
    shape, dtype = b.vals[x].shape, node.outs[0].dtype
    dims = _dims(node.arg("dim"), len(shape))
    top = b.reduction(index, x, dims, True, "max", "{acc}", b.fresh(index, "_max"), dtype)
    kept = b.vals[top].shape
    safe = b.put(Val(b.fresh(index, "_shift"), kept, dtype, "op", index,
                     expr='tl.where(tl.abs({0}) == float("inf"), 0.0, {0})', operands=(top,)))
    exp = b.put(Val(b.fresh(index, "_exp"), shape, dtype, "op", index,
                    expr="tl.exp({0} - {1})", operands=(x, safe)))
    total = b.reduction(index, exp, dims, True, "sum", "{acc}", b.fresh(index, "_sum"), dtype)
    keep = bool(node.arg("keepdim"))
    vid = f"v{index}" if keep else b.fresh(index, "_lse")
    b.put(Val(vid, kept, dtype, "op", index, expr="tl.log({0}) + {1}", operands=(total, safe)))
    if not keep:
        shown = tuple(d for d in range(len(shape)) if d not in dims)
        b.put(Val(f"v{index}", node.outs[0].shape, dtype, "view", index, operands=(vid,),
                  view=shown))


def _batch_norm(b: _Builder, index: int, node: Node) -> None:
    """Per channel (dim 1): batch statistics when training, else the running ones; then
    (x − mean) / sqrt(var + eps) · w + b, with the (C,) tensors viewed as (C, 1, …)."""
    args = dict(node.args)  # when training, the running statistics are only written
    x = b.operand(index, "input", args["input"])
    shape, dtype = b.vals[x].shape, node.outs[0].dtype
    b._extras(index, node)
    if args["training"]:
        # a reduced dim of size 1 is no dim at all: InstanceNorm's (1, N·C, H, W) is a row
        dims = tuple(d for d in range(len(shape)) if d != 1 and shape[d] != 1) or (0,)
        mean = b.reduction(index, x, dims, True, "sum", "{acc} / {count}",
                           b.fresh(index, "_mean"), dtype)
        dev = b.put(Val(b.fresh(index, "_dev"), shape, dtype, "op", index,
                        expr="({0} - {1}) * ({0} - {1})", operands=(x, mean)))
        var = b.reduction(index, dev, dims, True, "sum", "{acc} / {count}",
                          b.fresh(index, "_var"), dtype)
    else:
        mean, var = (_per_channel(b, index, args[k], shape, k)
                     for k in ("running_mean", "running_var"))
    operands = [x, mean, var, b.operand(index, "eps", args["eps"])]
    expr = "({0} - {1}) / tl.sqrt({2} + {3})"
    for role, op in (("weight", "*"), ("bias", "+")):
        if args[role] is not None:
            operands.append(_per_channel(b, index, args[role], shape, role))
            expr = f"{expr} {op} {{{len(operands) - 1}}}"
    b.put(Val(f"v{index}", shape, dtype, "op", index, expr=expr, operands=tuple(operands)))


def _per_channel(b: _Builder, index: int, ref, shape, role: str) -> str:
    """A (C,) tensor as (C, 1, …): broadcasting aligns trailing dims, the channel is dim 1."""
    vid = b.operand(index, role, ref)
    rest = (1,) * (len(shape) - 2)
    return b.put(Val(b.fresh(index, f"_{role}"), (b.vals[vid].shape[0], *rest),
                     b.vals[vid].dtype, "view", index, operands=(vid,),
                     view=(0,) + (None,) * len(rest)))


WRITERS = {
    "cumsum": _scan, "cumprod": _scan, "flip": _flip, "slice": _slice, "select": _select,
    "cat": _cat, "stack": _stack, "zeros_like": _filled(0.0), "ones_like": _filled(1.0),
    "full_like": _filled(None), "logsumexp": _logsumexp, "empty": empty,
    "native_batch_norm": _batch_norm,
}
