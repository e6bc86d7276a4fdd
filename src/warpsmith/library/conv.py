"""Convolution as an implicit GEMM with a fused epilogue: graph_conv.py's "conv" value (1-D,
2-D, 3-D; stride, padding, dilation, groups; transposed) and the pointwise chain after it
(bias, scalars, activations, per-channel tensors) as one tiled kernel (text: conv_text.py).

The GEMM is M = N·OD·OH·OW output pixels by N = OC/groups output channels over K =
IC/groups·KD·KH·KW, one group per program along the grid's second axis. No im2col is ever
stored: each K step loads its (pixel, tap) tile of the input straight from NC(D)HW through
the masks that padding, dilation and the image's edges need. A transposed convolution is
the same walk gathering instead of scattering: output o reads input i = (o + p − k·d) / s
where that divides exactly, so no two programs ever write one output.

What a tile cannot finish (reductions over the channels or the image, norms, another
convolution) is placed after the stored value by the graph families, as gemm.py does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .gemm import _cut, _tail, epilogue
from .graph import Decline, Graph, Val
from .graph_conv import Geometry
from .layout import Line, Load, Refused
from .window import first_stored


@dataclass(frozen=True)
class ConvKernel:
    family = "conv"  # the family that renders it (a class attribute, no field)
    name: str
    x: str  # the forward's expression for the input
    w: str  # … and for the weight: (OC, IC/g, k…), or (IC, OC/g, k…) when transposed
    geo: Geometry
    loads: tuple[Load, ...]  # the epilogue's operands, each indexed by some output dims
    lines: tuple[Line, ...]  # the epilogue over `acc`
    result: str  # the name stored
    out: str  # the forward's name for the tensor written
    out_dtype: str
    dtype: str  # the operands' dtype
    precision: str  # fp32 dot precision: "ieee" or "tf32"
    views: tuple[str, ...] = ()  # forward lines after the launch: views of the stored tensor


class Conv:
    name = "conv"
    knobs = {"CONV_BLOCK_M": 128, "CONV_BLOCK_N": 64, "CONV_BLOCK_K": 32, "CONV_GROUP_M": 8,
             "CONV_WARPS": 4, "CONV_STAGES": 3}

    def match(self, graph: Graph, ctx) -> tuple | Decline | None:
        return self.place_at(graph, ctx, 0)

    def place_at(self, graph: Graph, ctx, depth: int) -> tuple | Decline | None:
        convs = [v for v in graph.vals.values() if v.kind == "conv"]
        if not convs or first_stored(graph) == "pool":
            return None  # a pool first: the window family stores it for the conv to read
        try:
            return place(graph, convs[0], ctx, depth)
        except Refused as e:
            return Decline(convs[0].node, graph.ops[convs[0].node], str(e))

    def render(self, kernel: ConvKernel, tune: dict[str, int]):
        from .conv_text import render

        return render(kernel)


def place(graph: Graph, c: Val, ctx, depth: int) -> tuple | Decline:
    """The convolution's kernel, then the kernels of whatever follows its stored value."""
    if c.dtype not in ("float32", "float16"):
        raise Refused(f"a {c.dtype} convolution: the Triton CPU interpreter computes bf16 "
                      "tl.dot wrongly, so the kernel could not be verified without a GPU")
    x, w = (_operand(graph, vid, ctx.leaves, c.dtype, role)
            for vid, role in zip(c.operands, ("input", "weight"), strict=True))
    cut = _cut(graph, c)
    last = cut == graph.output
    temp = "out" if last else f"cv{depth}"
    loads, lines, result = epilogue(graph, c, cut, ctx.leaves)
    kernel = ConvKernel(f"conv_kernel_{depth}" if depth else "conv_kernel", x, w, c.span[0],
                        loads, lines, result, temp, graph.vals[cut].dtype, c.dtype, c.combine)
    if last:
        return (kernel,)
    rest, views = _tail(graph, cut, temp, ctx, depth)
    return rest if isinstance(rest, Decline) else (replace(kernel, views=views), *rest)


def _operand(graph: Graph, vid: str, leaves: dict, dtype: str, role: str) -> str:
    val = graph.vals[vid]
    if val.kind != "leaf":
        raise Refused(f"the convolution's {role} is computed before it (a prologue fused into "
                      "the convolution's loads is not written)")
    if val.dtype != dtype:
        raise Refused(f"a convolution of a {val.dtype} {role} into a {dtype} result")
    return leaves[vid][1]
