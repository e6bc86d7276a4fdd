"""More of graph.py's node writers: the scans and the index ops around them (flip, slice,
cat, select, the filled tensors), and logsumexp written out as two reductions.

Only the scan family (scan.py) places "scan", "flip", "slice", "cat" and "select" values;
layout.py refuses them everywhere else, so a pointwise or row kernel never ignores a flip.
"""

from __future__ import annotations

from .graph import Val, _Builder, _dims
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
        b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr=repr(float(fill))))
    return write


def _cat(b: _Builder, index: int, node: Node) -> None:
    parts = tuple(b.operand(index, f"tensors[{i}]", t)
                  for i, t in enumerate(node.arg("tensors")))
    meta = node.outs[0]
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "cat", index, operands=parts,
              dims=(node.arg("dim") % len(meta.shape),)))


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


WRITERS = {
    "cumsum": _scan, "cumprod": _scan, "flip": _flip, "slice": _slice, "select": _select,
    "cat": _cat, "zeros_like": _filled(0.0), "ones_like": _filled(1.0),
    "full_like": _filled(None), "logsumexp": _logsumexp,
}
