"""The take family: an index by 1-D tensors of positions along adjacent dims (graph_take.py's
"take" value, `z[:, li, lj]`) as a gather kernel over a stored tensor or an input: one lane
per output element reads the source at the positions its index names (negative ones from
the end, as torch reads them). What follows is placed after the stored result by the graph
families, as gemm.py places what follows a product; a source computed before it is read
from a temporary an earlier kernel writes (gemm.Prologue).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .family import Piece
from .gemm import Prologue, StoredFamily, tail_of
from .graph import Decline, Graph, Val


@dataclass(frozen=True)
class TakeKernel:
    family = "take"  # the family that renders it (a class attribute, no field)
    name: str
    x: str  # the forward's expression for the source
    ids: tuple[str, ...]  # for the positions along dims first, first + 1, …
    first: int
    out: str
    dtype: str
    views: tuple[str, ...] = ()  # forward lines after the launch: views of what it stored


class Take(StoredFamily):
    name, kind = "take", "take"
    reads = "graph"
    temp, kernel_name = "tk_g", "take_kernel"
    knobs = {"TAKE_BLOCK": 1024, "TAKE_WARPS": 4}

    def place(self, graph: Graph, val: Val, ctx, depth: int) -> tuple | Decline:
        for vid in val.operands:
            if graph.vals[vid].kind != "leaf":
                raise Prologue(vid)
        src, *ids = (ctx.leaves[vid][1] for vid in val.operands)
        out = "out" if graph.output == val.id else f"{self.temp}{depth}"
        kernel = TakeKernel(f"{self.kernel_name}_{depth}" if depth else self.kernel_name,
                            src, tuple(ids), val.dims[0], out, val.dtype)
        if out == "out":
            return (kernel,)
        rest, views = tail_of(graph, {val.id: out}, ctx, depth)
        return rest if isinstance(rest, Decline) else (replace(kernel, views=views), *rest)

    def render(self, kernel: TakeKernel, tune: dict[str, int]):

        return Piece(_text(kernel), _launch(kernel))


def _text(k: TakeKernel) -> str:
    n = range(len(k.ids))
    params = ["x_ptr", "out_ptr"] + [f"i{j}_ptr" for j in n] + ["total", "P", "INNER",
                                                                "sx_o"] + \
        [f"sx{j}" for j in n] + [f"D{j}" for j in n] + ["sx_i", "BLOCK: tl.constexpr"]
    body = ["offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)",
            "mask = offs < total", "inner = offs % INNER", "rest = offs // INNER",
            "p = rest % P", "o = rest // P"]
    for j in n:
        body += [f"j{j} = tl.load(i{j}_ptr + p, mask=mask, other=0).to(tl.int64)",
                 f"j{j} = tl.where(j{j} < 0, j{j} + D{j}, j{j})"]
    at = " + ".join(["o * sx_o"] + [f"j{j} * sx{j}" for j in n] + ["inner * sx_i"])
    body += [f"tl.store(out_ptr + offs, tl.load(x_ptr + {at}, mask=mask), mask=mask)"]
    return f"\n@triton.jit\ndef {k.name}({', '.join(params)}):\n" + \
        "".join(f"    {line}\n" for line in body)


def _launch(k: TakeKernel) -> tuple[str, ...]:
    o, a, n = k.out, k.first, len(k.ids)
    x = f"{o}_x"
    return (f"{x} = {k.x}",
            f"{o}_ids = [i.contiguous() for i in ({', '.join(k.ids)},)]",
            f"{o} = torch.empty((*{x}.shape[:{a}], {o}_ids[0].numel(), *{x}.shape[{a + n}:]), "
            f"dtype={x}.dtype, device={x}.device)",
            f"{x} = {x}.reshape(math.prod({x}.shape[:{a}]), *{x}.shape[{a}:{a + n}], "
            f"math.prod({x}.shape[{a + n}:]))",
            f"if {o}.numel():",
            f"    {k.name}[(triton.cdiv({o}.numel(), TAKE_BLOCK),)](",
            f"        {x}, {o}, *{o}_ids, {o}.numel(), {o}_ids[0].numel(), {x}.shape[-1],",
            f"        *{x}.stride()[:-1], *{x}.shape[1:-1], {x}.stride(-1),",
            "        BLOCK=TAKE_BLOCK, num_warps=TAKE_WARPS)", *k.views)
