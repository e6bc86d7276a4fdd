"""graph.py's writers for the matrix products: mm, bmm, addmm (nn.Linear) and linear.

A product is a "gemm" value over its two operands (A as (…, M, K), B as (…, K, N), each a
leaf or a view of one: a transposed weight stays a view, read at its strides), its `combine`
the fp32 dot precision ("ieee" unless the task allows TF32). What addmm and linear add to the
product (bias, beta and alpha) is an ordinary pointwise op after it, so the GEMM family
(gemm.py) fuses it into the epilogue with whatever follows.
"""

from __future__ import annotations

from .graph import Val, _Builder
from .ops import Unsupported
from .trace import Node


def _product(b: _Builder, index: int, node: Node, a, m, vid: str, shape) -> str:
    a = b.operand(index, "mat1" if node.name == "addmm" else "self", a)
    m = b.operand(index, "mat2", m)
    if len(b.vals[a].shape) != len(b.vals[m].shape) or len(shape) not in (2, 3):
        raise Unsupported(f"a product of {b.vals[a].shape} and {b.vals[m].shape} tensors "
                          "(2-D and batched 3-D products are written)")
    precision = "tf32" if b.trace.allow_tf32 else "ieee"
    return b.put(Val(vid, shape, node.outs[0].dtype, "gemm", index, operands=(a, m),
                     combine=precision))


def _mm(b: _Builder, index: int, node: Node) -> None:
    _product(b, index, node, node.arg("self"), node.arg("mat2"), f"v{index}",
             node.outs[0].shape)


def _addmm(b: _Builder, index: int, node: Node) -> None:
    """beta · self + alpha · (mat1 @ mat2): the product, then the scaled sum."""
    meta = node.outs[0]
    prod = _product(b, index, node, node.arg("mat1"), node.arg("mat2"),
                    b.fresh(index, "_mm"), meta.shape)
    bias = b.operand(index, "self", node.arg("self"))
    alpha, beta = node.arg("alpha"), node.arg("beta")
    if not all(isinstance(s, int | float) and not isinstance(s, bool) for s in (alpha, beta)):
        raise Unsupported("addmm with beta or alpha that is not a number")
    left = "{0}" if alpha == 1 else f"{float(alpha)!r} * {{0}}"
    right = "{1}" if beta == 1 else f"{float(beta)!r} * {{1}}"
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr=f"{left} + {right}",
              operands=(prod, bias)))


def _linear(b: _Builder, index: int, node: Node) -> None:
    """input @ weightᵀ (+ bias), for a 2-D input: the weight is read transposed in place."""
    meta = node.outs[0]
    w = b.operand(index, "weight", node.arg("weight"))
    if len(b.vals[w].shape) != 2 or len(meta.shape) != 2:
        raise Unsupported("linear of an input that is not 2-D (torch traces a 3-D one as "
                          "view, mm, view)")
    wt = b.put(Val(b.fresh(index, "_wt"), b.vals[w].shape[::-1], b.vals[w].dtype, "view",
                   index, operands=(w,), view=(1, 0)))
    bias = node.arg("bias")
    vid = f"v{index}" if bias is None else b.fresh(index, "_mm")
    x = b.operand(index, "input", node.arg("input"))
    b.put(Val(vid, meta.shape, meta.dtype, "gemm", index, operands=(x, wt),
              combine="tf32" if b.trace.allow_tf32 else "ieee"))
    if bias is not None:
        b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr="{0} + {1}",
                  operands=(vid, b.operand(index, "bias", bias))))


WRITERS = {"mm": _mm, "bmm": _mm, "addmm": _addmm, "linear": _linear}
