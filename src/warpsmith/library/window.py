"""The window family: a 2-D or 3-D max/avg pool (graph_window.py's "pool" value) over a tensor
an earlier kernel stored (a convolution's output: conv.py cuts before the pool) or an input,
with the pointwise chain after it as its epilogue, in one kernel; what follows that a lane
cannot finish (global averages, reductions over the channels, another pool) is placed after
its stored value by the graph families, as gemm.py does.

One lane per output element over a flat grid, so no grid axis meets the 65535 limit; each
walks its window unrolled (the window sizes are constants), masked at the padded edges. The
output is small next to the convolution before it (a 2×2×2 max pool reads 8 elements for one
written), so this pass is a read of the stored tensor and a write of an eighth of it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from .family import Piece
from .gemm import Prologue, Stored, StoredFamily
from .graph import Graph, Val
from .graph_window import Window
from .layout import Load, format_line, runtime_scalars
from .pointwise import _arg, _host_arg


@dataclass(frozen=True)
class WindowKernel(Stored):
    family = "window"  # the family that renders it (a class attribute, no field)
    name: str
    x: str  # the forward's expression for the pooled tensor
    window: Window


class WindowFamily(StoredFamily):
    name, kind = "window", "pool"
    reads = "graph"
    temp, kernel_name, kernel = "pl", "pool_kernel", WindowKernel
    knobs = {"POOL_BLOCK": 512, "POOL_WARPS": 4}

    def head(self, graph: Graph, p: Val, ctx) -> tuple:
        src = graph.vals[p.operands[0]]
        if src.kind != "leaf":
            # the pool reads its window's neighbours, which a lane of the kernel computing
            # the value (a batch norm's row kernel, a ReLU after a convolution's stored
            # output) does not hold: the value is written first (gemm._with_prologue, as a
            # product's computed operand), the pool placed over that tensor
            raise Prologue(src.id)
        return ctx.leaves[src.id][1], p.span[0]

    def render(self, kernel: WindowKernel, tune: dict[str, int]):

        scalars = runtime_scalars(kernel.lines)
        return Piece(_text(kernel, scalars), _launch(kernel, scalars))


def _text(k: WindowKernel, scalars) -> str:
    w, rank = k.window, k.window.rank
    sp = range(rank)
    params = ["x_ptr", "c_ptr", "total", "C"] + [f"IN{j}" for j in sp] + \
        [f"OUT{j}" for j in sp] + ["sx_n", "sx_c"] + [f"sx{j}" for j in sp] + \
        ["sc_n", "sc_c"] + [f"sc{j}" for j in sp] + [f"{ld.name}_ptr" for ld in k.loads] + \
        [f"{ld.name}_stride{j}" for ld in k.loads for j, d in enumerate(ld.dims)
         if d is not None] + [_arg(s) for s in scalars] + ["BLOCK: tl.constexpr"]
    body = ["offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)",
            "mask = offs < total", "rest = offs"]
    for j in reversed(sp):
        body += [f"o{j} = rest % OUT{j}", f"rest = rest // OUT{j}"]
    body += ["ch = rest % C", "nb = rest // C", "base = x_ptr + nb * sx_n + ch * sx_c"]
    body += _walk(w)
    index = {0: "nb", 1: "ch"} | {2 + j: f"o{j}" for j in sp}
    body += [_load(ld, index) for ld in k.loads] + [format_line(ln) for ln in k.lines]
    at = " + ".join(["nb * sc_n", "ch * sc_c"] + [f"o{j} * sc{j}" for j in sp])
    body.append(f"tl.store(c_ptr + {at}, {k.result}.to(c_ptr.dtype.element_ty), mask=mask)")
    return f"\n@triton.jit\ndef {k.name}({', '.join(params)}):\n" + \
        "".join(f"    {line}\n" for line in body)


def _walk(w: Window) -> list[str]:
    """The window unrolled: each tap's input position, its edge mask, max or sum."""
    if w.kind == "max":
        lines = ["acc = tl.full([BLOCK], float('-inf'), tl.float32)"]
    else:
        lines = ["acc = tl.zeros([BLOCK], dtype=tl.float32)",
                 "count = tl.zeros([BLOCK], dtype=tl.float32)"]
    for taps in itertools.product(*(range(k) for k in w.kernel)):
        at, ok, counted = [], ["mask"], ["mask"]
        for j, t in enumerate(taps):
            pos = f"(o{j} * {w.stride[j]} + {t * w.dilation[j] - w.padding[j]})"
            at.append(f"{pos} * sx{j}")
            if w.padding[j]:
                ok.append(f"({pos} >= 0) & ({pos} < IN{j})")
            elif w.ceil:  # the last window may run past the input's end
                ok.append(f"({pos} < IN{j})")
            if w.ceil:  # torch counts a tap inside the padded input (to IN + padding)
                counted.append(f"({pos} < IN{j} + {w.padding[j]})")
        cond = " & ".join(ok)
        if w.kind == "max":
            lines.append(f"acc = tl.maximum(acc, tl.load(base + {' + '.join(at)}, mask={cond}, "
                         "other=float('-inf')).to(tl.float32))")
        else:
            lines.append(f"acc += tl.load(base + {' + '.join(at)}, mask={cond}, "
                         "other=0).to(tl.float32)")
            if not w.count_pad and (any(w.padding) or w.ceil):
                lines.append(f"count += tl.where({cond}, 1.0, 0.0)")
            elif w.ceil:
                lines.append(f"count += tl.where({' & '.join(counted)}, 1.0, 0.0)")
    if w.kind == "avg" and (w.divisor or not (w.ceil or not w.count_pad and any(w.padding))):
        # floor mode: every window lies inside the padded input, so it counts all its taps
        lines.append(f"acc = acc / {float(w.divisor or math.prod(w.kernel))!r}")
    elif w.kind == "avg":
        lines.append("acc = acc / count")
    return lines


def _ceil(w: Window, j: int) -> str:
    return f" + {w.stride[j] - 1}" if w.ceil else ""


def _load(ld: Load, index: dict) -> str:
    cast = "" if ld.dtype == "bool" else ".to(tl.float32)"
    terms = [f"{index[d]} * {ld.name}_stride{j}" for j, d in enumerate(ld.dims)
             if d is not None]
    if not terms:
        return f"{ld.name} = tl.load({ld.name}_ptr){cast}"
    return f"{ld.name} = tl.load({ld.name}_ptr + {' + '.join(terms)}, mask=mask, other=0){cast}"


def _launch(k: WindowKernel, scalars) -> tuple[str, ...]:
    o, w = k.out, k.window
    sizes = [f"({o}_x.shape[{2 + j}] + {2 * w.padding[j]} - {w.dilation[j] * (w.kernel[j] - 1)}"
             f" - 1{_ceil(w, j)}) // {w.stride[j]} + 1" for j in range(w.rank)]
    ceil = [f"{o}_o{j} = {sizes[j]}" for j in range(w.rank)] + \
        [f"{o}_o{j} -= ({o}_o{j} - 1) * {w.stride[j]} >= {o}_x.shape[{2 + j}] + {w.padding[j]}"
         for j in range(w.rank)] if w.ceil else []
    # ceil_mode: the count rounded up, less a last window that would start in the padding
    sizes = [f"{o}_o{j}" for j in range(w.rank)] if w.ceil else sizes
    args = [f"{o}_x", o, f"{o}.numel()", f"{o}_x.shape[1]"] + \
        [f"{o}_x.shape[{2 + j}]" for j in range(w.rank)] + \
        [f"{o}.shape[{2 + j}]" for j in range(w.rank)] + \
        [f"{t}.stride({j})" for t in (f"{o}_x", o) for j in range(w.rank + 2)] + \
        [ld.host for ld in k.loads] + \
        [f"{ld.host}.stride({j})" for ld in k.loads for j, d in enumerate(ld.dims)
         if d is not None] + [_host_arg(s) for s in scalars]
    return (f"{o}_x = {k.x}", *ceil,
            f"{o} = torch.empty(({o}_x.shape[0], {o}_x.shape[1], {', '.join(sizes)}), "
            f"dtype=torch.{k.out_dtype}, device={o}_x.device)",
            f"{k.name}[(triton.cdiv({o}.numel(), POOL_BLOCK),)](",
            f"    {', '.join(args)},",
            "    BLOCK=POOL_BLOCK, num_warps=POOL_WARPS)", *k.views)
