"""The scatter family: an index_add (graph_scatter.py's "scatter" value, a segment sum) as a
kernel of atomic adds: the destination copied (or allocated filled, where it is a fill) into
the tensor stored, then one program per source row and block of columns adds the row into
the slot its id names. What follows (a mean's division by the counts) is placed after the
stored value by the graph families, as gemm.py places what follows a product.

Atomic float adds land in no fixed order, so a sum's last bits may differ run to run, within
the verifier's tolerance; integer counts are exact. A source or destination computed by more
than a fill is read from a temporary an earlier kernel writes (gemm.Prologue).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .family import Piece
from .gemm import Prologue, StoredFamily, tail_of
from .graph import Decline, Graph, Val
from .graph_scatter import fill_sizes, fill_value
from .layout import Refused

ATOMIC_DTYPES = ("float32", "int32", "int64")  # tl.atomic_add's, on every backend here


@dataclass(frozen=True)
class ScatterKernel:
    family = "scatter"  # the family that renders it (a class attribute, no field)
    name: str
    dst: str  # the forward's expression copied into the output
    fill: str  # or the constant it is filled with ("" where dst is a tensor)
    sizes: tuple[str, ...]  # a fill's sizes, forward expressions
    ids: str
    src: str  # the forward's expression of the source ("" where it is a constant)
    value: str  # the source's constant
    dim: int
    out: str
    dtype: str
    views: tuple[str, ...] = ()  # forward lines after the launch: views of what it stored


class Scatter(StoredFamily):
    name, kind = "scatter", "scatter"
    reads = "graph"
    temp, kernel_name = "sc", "scatter_add_kernel"
    knobs = {"SCATTER_BLOCK": 256, "SCATTER_WARPS": 4}

    def place(self, graph: Graph, val: Val, ctx, depth: int) -> tuple | Decline:
        dst, ids, src = val.operands
        if val.dtype not in ATOMIC_DTYPES:
            raise Refused(f"an index_add into a {val.dtype} tensor (atomic adds into "
                          f"{', '.join(ATOMIC_DTYPES)} are written)")
        fill, value = fill_value(graph.vals, dst), fill_value(graph.vals, src)
        sizes = fill_sizes(graph.vals, dst) if fill else None
        fill = fill if sizes else None  # a fill whose sizes no writer kept: computed first
        for vid, const in ((dst, fill), (ids, None), (src, value)):
            if const is None and graph.vals[vid].kind != "leaf":
                raise Prologue(vid)
        names = {"dst": "" if fill else ctx.leaves[dst][1],
                 "src": "" if value else ctx.leaves[src][1]}
        sizes = tuple(x.format(*ctx.arg_names) for x in sizes or ())
        out = "out" if graph.output == val.id else f"{self.temp}{depth}"
        kernel = ScatterKernel(f"{self.kernel_name}_{depth}" if depth else self.kernel_name,
                               names["dst"], fill or "", sizes, ctx.leaves[ids][1],
                               names["src"], value or "", val.dims[0], out, val.dtype)
        if out == "out":
            return (kernel,)
        rest, views = tail_of(graph, {val.id: out}, ctx, depth)
        return rest if isinstance(rest, Decline) else (replace(kernel, views=views), *rest)

    def render(self, kernel: ScatterKernel, tune: dict[str, int]):

        return Piece(TEXT.replace("scatter_add_kernel", kernel.name), _launch(kernel))


TEXT = '''
@triton.jit
def scatter_add_kernel(out_ptr, ids_ptr, src_ptr, n_ids, slots, inner, value,
                       CONST: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # over (outer, n_ids): one source row each
    o = row // n_ids
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < inner
    slot = tl.load(ids_ptr + row % n_ids).to(tl.int64)
    if CONST:
        vals = tl.full([BLOCK], value, tl.float32)
    else:
        vals = tl.load(src_ptr + row * inner + cols, mask=mask, other=0).to(tl.float32)
    tl.atomic_add(out_ptr + (o * slots + slot) * inner + cols,
                  vals.to(out_ptr.dtype.element_ty), mask=mask)
'''


def _launch(k: ScatterKernel) -> tuple[str, ...]:
    o, d = k.out, k.dim
    if k.fill:
        made = (f"{o} = torch.full(({', '.join(k.sizes)},), {k.fill}, "
                f"dtype=torch.{k.dtype}, device={k.ids}.device)")
    else:
        made = f"{o} = {k.dst}.clone(memory_format=torch.contiguous_format)"
    src = f"{k.src}.contiguous()" if k.src else o
    return (made,
            f"{o}_ids = {k.ids}.contiguous()",
            f"{o}_inner = math.prod({o}.shape[{d + 1}:])",
            f"{o}_rows = math.prod({o}.shape[:{d}]) * {o}_ids.numel()",
            f"if {o}_rows and {o}_inner:",
            f"    {k.name}[({o}_rows, triton.cdiv({o}_inner, SCATTER_BLOCK))](",
            f"        {o}, {o}_ids, {src}, {o}_ids.numel(), {o}.shape[{d}], {o}_inner,",
            f"        {float(k.value or 0)!r}, CONST={int(bool(k.value))},",
            "        BLOCK=SCATTER_BLOCK, num_warps=SCATTER_WARPS)", *k.views)
