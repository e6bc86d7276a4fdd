"""The topk family: a sorted top-k along the last dim (graph_topk.py's "topk" values) as a
row kernel, one program per row, the row held in registers: k passes, each taking the
largest (smallest) value left and its position, then masking that position out. Built for
a short row or a small k (a router over 8-64 experts, a sampler keeping 50 of a vocabulary
of a few thousand); tl.topk would sort faster but gives no positions.

Equal values are taken lowest position first, and NaN ranks above every number (below, for
the smallest), as torch.topk ranks it. The kernel stores both the values and the positions;
what the rest of the graph reads of them is placed after it by the graph families, as
gemm.py places what follows a product. A top-k of a computed value reads it from a
temporary an earlier kernel writes (gemm.Prologue).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .family import Piece
from .gemm import Prologue, StoredFamily, tail_of
from .graph import Decline, Graph, Val


@dataclass(frozen=True)
class TopKKernel:
    family = "topk"  # the family that renders it (a class attribute, no field)
    name: str
    x: str  # the forward's expression for the source
    k: str  # the forward's expression for k
    largest: bool
    values: str  # the forward's names of the two tensors written
    positions: str
    dtype: str  # the values'
    views: tuple[str, ...] = ()  # forward lines after the launch: views of what it stored


class TopK(StoredFamily):
    name, kind = "topk", "topk"
    reads = "graph"
    temp, kernel_name = "tk", "topk_kernel"
    knobs = {"TOPK_WARPS": 4}

    def place(self, graph: Graph, val: Val, ctx, depth: int) -> tuple | Decline:
        src = graph.vals[val.operands[0]]
        if src.kind != "leaf":
            raise Prologue(src.id)
        ids = (f"v{val.node}", f"v{val.node}_1")
        names = tuple("out" if vid == graph.output else f"{self.temp}{depth}{part}"
                      for vid, part in zip(ids, ("", "_i"), strict=True))
        k, largest = val.span
        kernel = TopKKernel(f"{self.kernel_name}_{depth}" if depth else self.kernel_name,
                            ctx.leaves[src.id][1], k.format(*ctx.arg_names), largest, *names,
                            src.dtype)
        if graph.output in ids:
            return (kernel,)
        temps = {vid: name for vid, name in zip(ids, names, strict=True) if vid in graph.vals}
        rest, views = tail_of(graph, temps, ctx, depth)
        return rest if isinstance(rest, Decline) else (replace(kernel, views=views), *rest)

    def render(self, kernel: TopKKernel, tune: dict[str, int]):

        return Piece(_text(kernel), _launch(kernel))


# Which lanes a pass takes from: the first tier holding any lane alive, then, within it,
# those equal to its extreme; the lowest position of them wins.
_PASS = {
    True: ["num = alive & ~nan",
           "top = tl.max(tl.where(num, x, float('-inf')), 0)",
           "first = tl.max((alive & nan).to(tl.int32), 0) > 0",
           "best = tl.where(first, alive & nan, num & (x == top))"],
    False: ["num = alive & ~nan",
            "top = tl.min(tl.where(num, x, float('inf')), 0)",
            "first = tl.max(num.to(tl.int32), 0) > 0",
            "best = tl.where(first, num & (x == top), alive & nan)"],
}


def _text(k: TopKKernel) -> str:
    body = ["row = tl.program_id(0).to(tl.int64)",
            "cols = tl.arange(0, BLOCK)",
            "alive = cols < N",
            "x = tl.load(x_ptr + row * sx_r + cols * sx_c, mask=alive, other=0.0)"
            ".to(tl.float32)",
            "nan = x != x",
            "for j in range(K):"]
    body += ["    " + line for line in _PASS[k.largest]]
    body += ["    pick = tl.min(tl.where(best, cols, BLOCK), 0)",
             "    hit = cols == pick",
             "    value = tl.sum(tl.where(hit, x, 0.0), 0)",
             "    tl.store(v_ptr + row * K + j, value.to(v_ptr.dtype.element_ty))",
             "    tl.store(i_ptr + row * K + j, pick.to(tl.int64))",
             "    alive = alive & ~hit"]
    params = "x_ptr, v_ptr, i_ptr, N, sx_r, sx_c, K: tl.constexpr, BLOCK: tl.constexpr"
    return f"\n@triton.jit\ndef {k.name}({params}):\n" + \
        "".join(f"    {line}\n" for line in body)


def _launch(k: TopKKernel) -> tuple[str, ...]:
    x, v, i = f"{k.values}_x", k.values, k.positions
    return (f"{x} = {k.x}",
            f"{x} = {x}.reshape(-1, {x}.shape[-1])",
            f"{k.values}_k = {k.k}",
            f"{v} = torch.empty(({x}.shape[0], {k.values}_k), dtype=torch.{k.dtype}, "
            f"device={x}.device)",
            f"{i} = torch.empty(({x}.shape[0], {k.values}_k), dtype=torch.int64, "
            f"device={x}.device)",
            f"{k.name}[({x}.shape[0],)](",
            f"    {x}, {v}, {i}, {x}.shape[1], {x}.stride(0), {x}.stride(1),",
            f"    K={k.values}_k, BLOCK=triton.next_power_of_2({x}.shape[1]),",
            "    num_warps=TOPK_WARPS)",
            f"{v} = {v}.view(*{k.x}.shape[:-1], {k.values}_k)",
            f"{i} = {i}.view(*{k.x}.shape[:-1], {k.values}_k)", *k.views)
