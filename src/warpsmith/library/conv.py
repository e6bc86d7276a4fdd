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
convolution) is placed after the stored value by the graph families, as gemm.py does. An
input or weight computed before the convolution (a pre-activation, squeeze-excitation's mean,
a standardised weight) is its prologue, written to a temporary first as a product's is
(gemm._with_prologue), not fused into the convolution's loads.
"""

from __future__ import annotations

from dataclasses import dataclass

from .conv_depthwise import KNOBS as DEPTHWISE_KNOBS
from .gemm import Prologue, Stored, StoredFamily, dot_dtype
from .graph import Graph, Val
from .graph_conv import Geometry
from .layout import Refused


@dataclass(frozen=True)
class ConvKernel(Stored):
    family = "conv"  # the family that renders it (a class attribute, no field)
    name: str
    x: str  # the forward's expression for the input
    w: str  # … and for the weight: (OC, IC/g, k…), or (IC, OC/g, k…) when transposed
    geo: Geometry
    dtype: str  # the operands' dtype
    precision: str  # fp32 dot precision: "ieee" or "tf32"


class Conv(StoredFamily):
    name = kind = "conv"
    reads = "graph"
    temp, kernel_name, kernel = "cv", "conv_kernel", ConvKernel
    knobs = {"CONV_BLOCK_M": 128, "CONV_BLOCK_N": 64, "CONV_BLOCK_K": 32, "CONV_GROUP_M": 8,
             "CONV_WARPS": 4, "CONV_STAGES": 3, "CONV_TF32X3": 1, **DEPTHWISE_KNOBS}

    def head(self, graph: Graph, c: Val, ctx) -> tuple:
        dtype = dot_dtype(c, "convolution")
        x, w = (_operand(graph, vid, ctx.leaves, dtype, role)
                for vid, role in zip(c.operands, ("input", "weight"), strict=True))
        return x, w, c.span[0], dtype, c.combine

    def render(self, kernel: ConvKernel, tune: dict[str, int]):
        from .conv_text import render

        return render(kernel)


def _operand(graph: Graph, vid: str, leaves: dict, dtype: str, role: str) -> str:
    val = graph.vals[vid]
    if val.kind != "leaf":
        raise Prologue(vid)
    if val.dtype != dtype:
        raise Refused(f"a convolution of a {val.dtype} {role} into a {dtype} result")
    return leaves[vid][1]
