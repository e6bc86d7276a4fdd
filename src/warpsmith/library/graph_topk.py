"""graph.py's writer for aten.topk (a router's experts, a sampler's kept logits): two "topk"
values of one node, the k largest (or smallest) values `v{i}` and their positions `v{i}_1`
(int64), each with the source as its operand, the dim in `dims` and (k, largest) in `span`,
k as the forward's expression for it (a constructor argument's `self.size{j}` where one
equals it, so the candidate follows the verifier's secret twin). The topk family (topk.py)
places the node as a kernel storing both, like a product's stored output, and hands the rest
of the graph what it reads of them as inputs.

Only a sorted top-k along the last dim is written: torch returns the order of an unsorted
one as its selection algorithm leaves it, which no other kernel can promise to match, and
the verifier compares the positions exactly.
"""

from __future__ import annotations

from .graph import Val, _Builder
from .graph_parts import _bound
from .ops import Unsupported
from .trace import Node


def _topk(b: _Builder, index: int, node: Node) -> None:
    src = b.operand(index, "self", node.arg("self"))
    shape = b.vals[src].shape
    dim = node.arg("dim") % max(len(shape), 1)
    if not shape or dim != len(shape) - 1:
        raise Unsupported(f"topk along dim {dim} of a {len(shape)}-D tensor (a top-k along "
                          "the last dim is written)")
    k = node.arg("k")
    if node.arg("sorted") is False and k > 1:
        raise Unsupported("topk with sorted=False: torch leaves the order to its selection "
                          "algorithm, which a kernel cannot promise to match")
    if b.vals[src].dtype not in ("float32", "float16", "bfloat16"):
        raise Unsupported(f"topk of a {b.vals[src].dtype} tensor (floating ones are written)")
    span = (_k(b, k), node.arg("largest") is not False)
    for j, meta in enumerate(node.outs):
        b.put(Val(f"v{index}" if j == 0 else f"v{index}_{j}", meta.shape, meta.dtype, "topk",
                  index, operands=(src,), dims=(dim,), span=span))


def _k(b: _Builder, k: int) -> str:
    """k over "{0}", "{1}" (the forward's inputs by position) or `self.size{j}`: a
    constructor argument first, since k is a model's setting more often than a size."""
    for j, arg in enumerate(b.trace.init_inputs):
        if type(arg) is int and arg == k and k > 1:
            return f"self.size{j}"
    return _bound(b, k)


WRITERS = {"topk": _topk}
