"""Pooling along the last dim for graph.py, as KernelBench writes a 1-D pool over a GEMM's
features (x.unsqueeze(1) then max_pool1d/avg_pool1d, traced as a 2-D pool of kernel (1, k)):
windows that tile the dim exactly (stride = kernel, no padding) are a reshape to (…, W/k, k)
and a max or mean over the last dim, which the row kernels place. The reshape of a computed
value is a "regroup" (graph_group.py), which the GEMM family reads as a view of what it
stores. Other windows are a "pool" value (graph_window.py) the window family places.
"""

from __future__ import annotations

from .graph import _Builder
from .graph_group import _regroup
from .trace import Node


def pool_last(b: _Builder, index: int, node: Node) -> None:
    args = dict(node.args)
    x = b.operand(index, "self", args["self"])
    shape = b.vals[x].shape
    kernel = tuple(args["kernel_size"])
    stride = tuple(args.get("stride") or kernel)
    width = shape[-1]
    if len(shape) < 3 or len(kernel) != 2 or kernel[0] != 1 or stride != kernel \
            or any(args.get("padding", (0, 0))) or args.get("ceil_mode") \
            or tuple(args.get("dilation", (1, 1))) != (1, 1) \
            or args.get("divisor_override") is not None or width % kernel[1]:
        from .graph_window import pool  # any other window: the window family's (window.py)

        return pool(b, index, node)
    b._extras(index, node)  # max_pool2d's indices: declined if used
    k = kernel[1]
    base = x
    while b.vals[base].kind == "view" and _units_only(b, base):
        base = b.vals[base].operands[0]  # unsqueezes: the same elements in the same order
    # the whole windows only: a size that k does not divide (the verifier's secret twin grows
    # the traced one) leaves a remainder the pool drops, and the view needs the exact prefix
    windows = _regroup(b, index, base, (*shape[:-1], width // k, k), "_win",
                       prefix=f"[..., :{{h}}.shape[-1] // {k} * {k}]")
    combine, finalize = ("max", "{acc}") if node.name.startswith("max") else \
        ("sum", "{acc} / {count}")
    b.reduction(index, windows, (len(shape),), False, combine, finalize, f"v{index}",
                node.outs[0].dtype)


def _units_only(b: _Builder, vid: str) -> bool:
    val = b.vals[vid]
    src = b.vals[val.operands[0]]
    return [s for s in val.shape if s != 1] == [s for s in src.shape if s != 1] and \
        [d for d in val.view if d is not None and src.shape[d] != 1] == \
        [d for d, s in enumerate(src.shape) if s != 1]


WRITERS = {"max_pool2d_with_indices": pool_last, "avg_pool2d": pool_last}
