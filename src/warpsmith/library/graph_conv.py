"""graph.py's writer for aten.convolution (nn.Conv1d/2d/3d, nn.ConvTranspose1d/2d/3d, the F.*
forms): a "conv" value over the input and the weight, its geometry in `span`, its `combine`
the fp32 dot precision (as a product's, graph_gemm.py). The bias is an ordinary pointwise add
after it, a (C,) vector viewed as (C, 1, …) so it broadcasts along the channels, which the
conv family (conv.py) fuses into its epilogue with whatever follows.
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph import Val, _Builder
from .graph_view import _permuted_leaf, turned_leaf
from .ops import Unsupported
from .trace import Node


@dataclass(frozen=True)
class Geometry:
    """Per spatial dim: stride, padding, dilation, output padding; and the groups."""

    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]
    output_padding: tuple[int, ...]
    groups: int  # 0 for a forward convolution: IC / the weight's IC per group, at run time
    transposed: bool

    @property
    def rank(self) -> int:
        return len(self.stride)


def _ints(value, rank: int, name: str) -> tuple[int, ...]:
    values = tuple(value) if isinstance(value, tuple | list) else (value,) * rank
    if len(values) == 1:
        values *= rank
    if len(values) != rank or not all(isinstance(v, int) and not isinstance(v, bool)
                                      for v in values):
        raise Unsupported(f"a convolution whose {name} is {value!r}, not {rank} integers")
    return values


def _read_at_strides(b: _Builder, index: int, part: str, vid: str) -> str:
    """An operand that is a transpose or permute of a leaf (Mamba's `x.transpose(1, 2)` of
    (B, L, D) hidden states, a channels-last (B, H, W, C) input permuted to NCHW) is no
    computed prologue: a leaf the forward binds as that view (`x.permute(0, 2, 1)`, no copy),
    which the kernels read at its strides as they read any input."""
    if b.vals[vid].kind != "view":
        return vid
    found = _permuted_leaf(b.vals, vid)
    if found is None:
        return vid
    val = b.vals[vid]
    return b.put(turned_leaf(b.fresh(index, part), b.vals[found[0]], found[1], val.shape,
                             val.dtype))


def _convolution(b: _Builder, index: int, node: Node) -> None:
    args = dict(node.args)
    meta = node.outs[0]
    x = _read_at_strides(b, index, "_x", b.operand(index, "input", args["input"]))
    w = _read_at_strides(b, index, "_w", b.operand(index, "weight", args["weight"]))
    rank = len(b.vals[w].shape) - 2
    if rank not in (1, 2, 3) or len(b.vals[x].shape) != rank + 2:
        raise Unsupported(f"a convolution of a {b.vals[x].shape} input by a "
                          f"{b.vals[w].shape} weight (batched 1-D, 2-D and 3-D are written)")
    transposed = bool(args["transposed"])
    # a depthwise task's groups follow its channels, which may differ between its shapes;
    # a transposed weight (IC, OC/g, …) does not tell its groups, so those stay constants
    geo = Geometry(*(_ints(args[k], rank, k) for k in ("stride", "padding", "dilation",
                                                      "output_padding")),
                   int(args["groups"]) if transposed else 0, transposed)
    bias = args.get("bias")
    vid = f"v{index}" if bias is None else b.fresh(index, "_conv")
    b.put(Val(vid, meta.shape, meta.dtype, "conv", index, operands=(x, w),
              combine="tf32" if b.trace.allow_tf32 else "ieee", span=(geo,)))
    if bias is None:
        return
    bias = b.operand(index, "bias", bias)
    channels = b.put(Val(b.fresh(index, "_bias"), (meta.shape[1],) + (1,) * rank,
                         b.vals[bias].dtype, "view", index, operands=(bias,),
                         view=(0,) + (None,) * rank))
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr="{0} + {1}",
              operands=(vid, channels)))


WRITERS = {"convolution": _convolution}
