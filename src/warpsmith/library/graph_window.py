"""graph.py's writer for 2-D and 3-D max/avg pooling over a whole window (nn.MaxPool2d/3d,
nn.AvgPool2d/3d after a convolution): a "pool" value over its source, its window in `span`.
Only the window family (window.py) places one, over a tensor an earlier kernel stored (a
convolution's output) or an input, with the pointwise chain after it as its epilogue.
Windows (1, k) that tile the last dim exactly stay graph_pool.py's (a reshape and a row
reduction, fused after a GEMM).
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph import Val, _Builder
from .ops import Unsupported
from .trace import Node


@dataclass(frozen=True)
class Window:
    kind: str  # "max" or "avg"
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]
    count_pad: bool  # avg: padded elements count in the divisor
    divisor: int  # avg: divisor_override, 0 when none
    ceil: bool = False  # ceil_mode: a last window may start inside the input and run past it

    @property
    def rank(self) -> int:
        return len(self.kernel)


def _ints(value, rank: int, default) -> tuple[int, ...]:
    if value is None or value == () or value == []:
        value = default
    values = tuple(value) if isinstance(value, tuple | list) else (value,) * rank
    return values * rank if len(values) == 1 else values


def pool(b: _Builder, index: int, node: Node) -> None:
    args = dict(node.args)
    x = b.operand(index, "self", args["self"])
    rank = 3 if "3d" in node.name else 2
    if len(b.vals[x].shape) != rank + 2:
        raise Unsupported(f"a {rank}-D pool of a {b.vals[x].shape} tensor (batched (N, C, …) "
                          "inputs are written)")
    kernel = _ints(args["kernel_size"], rank, None)
    window = Window("max" if node.name.startswith("max") else "avg", kernel,
                    _ints(args.get("stride"), rank, kernel), _ints(args.get("padding"), rank, 0),
                    _ints(args.get("dilation"), rank, 1),
                    bool(args.get("count_include_pad", True)),
                    int(args.get("divisor_override") or 0), bool(args.get("ceil_mode")))
    b._extras(index, node)  # max pooling's indices: declined if used
    meta = node.outs[0]
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "pool", index, operands=(x,),
              span=(window,)))


WRITERS = {"max_pool3d_with_indices": pool, "avg_pool3d": pool}
