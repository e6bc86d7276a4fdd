"""Scans: cumsum/cumprod along one dim with a pointwise prologue (x * mask) and epilogue,
flips along the scanned dim (a reverse scan), slices of it and a leading constant part
(cat((zeros, cumsum(x[:, :-1])), 1): an exclusive scan), in one kernel. A program owns one
line of the scanned dim ("rows", the dim is last) or BLOCK_I adjacent lines ("cols"), scans
BLOCK_R-long tiles with tl.cumsum / tl.cumprod and carries the running total between them.

Flips and slices move no data: each value knows where the tile's lane r sits along the
scanned dim (a `Pos`), and its loads and the store use that position.
"""

from __future__ import annotations

from dataclasses import dataclass

from .family import Piece
from .graph import Decline, Graph, Val
from .layout import Line, Refused, format_line, runtime_scalars
from .pointwise import _arg, _host_arg
from .scan_walk import Pos, ScanLoad, place

IDENTITY = {"sum": "0.0", "prod": "1.0"}
SCAN_FN = {"sum": ("tl.cumsum", "+"), "prod": ("tl.cumprod", "*")}


@dataclass(frozen=True)
class ScanKernel:
    family = "scan"  # the family that renders it (a class attribute, no field)
    name: str
    dim: int  # the scanned dim
    layout: str  # "rows" (the scanned dim is the last that is not 1) or "cols"
    combine: str  # "sum" or "prod"
    loads: tuple[ScanLoad, ...]
    prologue: tuple[Line, ...]  # before the scan, for every lane
    source: str  # the scanned value's name
    result: str  # the scan's name
    epilogue: tuple[Line, ...]  # after it
    stored: str  # the output's name
    store: Pos  # where the output's lane r goes
    out_delta: int  # the output's length along the dim, minus n_scan
    fill: tuple  # (positions, value) of a leading constant part, or ()
    out_dtype: str
    sizes: tuple[str, ...]  # the output's shape, over F and n_scan

    @property
    def lines(self) -> tuple[Line, ...]:
        return self.prologue + self.epilogue


class Scan:
    name = "scan"
    reads = "graph"
    knobs = {"SCAN_BLOCK_R": 1024, "SCAN_BLOCK_I": 16, "SCAN_WARPS": 4}

    def match(self, graph: Graph, ctx) -> tuple | Decline | None:
        scans = [v for v in graph.vals.values() if v.kind == "scan"]
        if not scans:
            return None
        try:
            if len(scans) > 1:
                raise Refused(f"the graph has {len(scans)} scans; one a graph is written")
            return (plan(graph, scans[0], ctx.leaves),)
        except Refused as e:
            return Decline(scans[0].node, graph.ops[scans[0].node], str(e))

    def render(self, k: ScanKernel, tune: dict[str, int]):

        scalars = runtime_scalars(k.lines)
        return Piece(_kernel_text(k, scalars), _launch(k, scalars))


def plan(graph: Graph, scan: Val, leaves: dict) -> ScanKernel:
    placed = place(graph, scan, leaves)
    d = scan.dims[0]
    out = graph.vals[graph.output]
    trailing = out.shape[d + 1:]
    sizes = tuple(_length("n_scan", placed.out_delta) if j == d else f"F[{j}]"
                  for j in range(len(out.shape)))
    return ScanKernel("scan_kernel", d, "rows" if all(s == 1 for s in trailing) else "cols",
                      scan.combine, placed.loads, placed.prologue, placed.source,
                      placed.result, placed.epilogue, placed.stored, placed.store,
                      placed.out_delta, placed.fill, out.dtype, sizes)


def _paren(pos: str) -> str:
    return pos if pos == "r" else f"({pos})"


def _length(base: str, delta: int) -> str:
    return base if delta == 0 else f"({base} {'+' if delta > 0 else '-'} {abs(delta)})"


# What differs between a program owning one line and one owning BLOCK_I of them.
LAYOUTS = {
    "rows": {"head": ["row = tl.program_id(0).to(tl.int64)"], "tile": "[1]",
             "lanes": "start + tl.arange(0, BLOCK_R)", "mask": "r < n_scan",
             "at": "row * {length} + {pos}", "fill": "tl.arange(0, {n})",
             "fill_mask": "f < {k}", "fill_tile": "[{n}]", "group": "row",
             "group_mask": ""},
    "cols": {"head": ["outer = tl.program_id(0).to(tl.int64)",
                      "cols = tl.program_id(1) * BLOCK_I + tl.arange(0, BLOCK_I)",
                      "col_mask = cols < n_inner"], "tile": "[1, BLOCK_I]",
             "lanes": "(start + tl.arange(0, BLOCK_R))[:, None]",
             "mask": "(r < n_scan) & col_mask[None, :]",
             "at": "(outer * {length} + {pos}) * n_inner + cols[None, :]",
             "fill": "tl.arange(0, {n})[:, None]", "fill_mask": "(f < {k}) & col_mask[None, :]",
             "fill_tile": "[{n}, BLOCK_I]",
             "group": "outer * n_inner + cols[None, :]",
             "group_mask": ", mask=col_mask[None, :], other=0"},
}


def _kernel_text(k: ScanKernel, scalars: list) -> str:
    lay = LAYOUTS[k.layout]
    body = list(lay["head"]) + [_load(ld, lay) for ld in k.loads if ld.pos is None]
    body += _fill_text(k, lay)
    fn, op = SCAN_FN[k.combine]
    loop = [f"r = {lay['lanes']}", f"mask = {lay['mask']}"]
    loop += [_load(ld, lay) for ld in k.loads if ld.pos is not None]
    loop += [format_line(ln) for ln in k.prologue]
    loop += [f"{k.result} = {fn}(tl.where(mask, {k.source}, {IDENTITY[k.combine]}), axis=0) "
             f"{op} carry",
             "# the running total goes on from the tile's last element",
             "last = tl.minimum(start + BLOCK_R, n_scan) - 1",
             f"carry = tl.sum(tl.where(r == last, {k.result}, 0.0), axis=0, keep_dims=True)"]
    loop += [format_line(ln) for ln in k.epilogue]
    at = lay["at"].format(length=_length("n_scan", k.out_delta), pos=_paren(k.store.text()))
    loop.append(f"tl.store(out_ptr + {at}, {k.stored}.to(out_ptr.dtype.element_ty), "
                "mask=mask)")
    body += [f"carry = tl.full({lay['tile']}, {IDENTITY[k.combine]}, tl.float32)",
             "for start in range(0, n_scan, BLOCK_R):"] + ["    " + ln for ln in loop]
    blocks = "BLOCK_R: tl.constexpr" + (", BLOCK_I: tl.constexpr" if k.layout == "cols" else "")
    params = [f"{ld.name}_ptr" for ld in k.loads] + \
        [f"{ld.name}_row" for ld in k.loads if _strided(ld, lay)] + ["out_ptr", "n_scan"] + \
        (["n_inner"] if k.layout == "cols" else []) + [_arg(s) for s in scalars] + [blocks]
    return f"\n@triton.jit\ndef {k.name}({', '.join(params)}):\n" + \
        "\n".join("    " + b for b in body) + "\n"


def _fill_text(k: ScanKernel, lay) -> list[str]:
    if not k.fill:
        return []
    positions, value = k.fill
    n = 1 << max(positions - 1, 0).bit_length()  # a power of two >= positions
    at = lay["at"].format(length=_length("n_scan", k.out_delta), pos="f")
    tile, mask = lay["fill_tile"].format(n=n), lay["fill_mask"].format(k=positions)
    return [f"# the first {positions} output position(s) hold the constant {value}",
            f"f = {lay['fill'].format(n=n)}",
            f"tl.store(out_ptr + {at}, tl.full({tile}, {value}, tl.float32)"
            f".to(out_ptr.dtype.element_ty), mask={mask})"]


def _load(ld: ScanLoad, lay) -> str:
    cast = "" if ld.dtype == "bool" else ".to(tl.float32)"
    if ld.kind == "scalar":  # one element, every lane reads it
        return f"{ld.name} = tl.load({ld.name}_ptr){cast}"
    if ld.kind == "group":  # one value per line
        return f"{ld.name} = tl.load({ld.name}_ptr + {lay['group']}{lay['group_mask']}){cast}"
    if ld.kind == "line":  # one value per position, the same for every line
        return (f"{ld.name} = tl.load({ld.name}_ptr + {ld.pos.text()}, mask=r < n_scan, "
                f"other=0){cast}")
    length = f"{ld.name}_row" if _strided(ld, lay) else _length("n_scan", ld.delta)
    at = lay["at"].format(length=length, pos=_paren(ld.pos.text()))
    return f"{ld.name} = tl.load({ld.name}_ptr + {at}, mask=mask, other=0){cast}"


def _strided(ld: ScanLoad, lay) -> bool:
    """A full operand of a line-per-program scan is read at its own row stride: a slice
    along the scanned dim (an exclusive scan's x[:, :-1]) is no longer copied to a
    contiguous tensor first, a copy that took half of the GPU time (KernelBench 92)."""
    return ld.kind == "full" and lay is LAYOUTS["rows"]


def _launch(k: ScanKernel, scalars: list) -> tuple[str, ...]:
    full = next(ld for ld in k.loads if ld.kind == "full")
    d = k.dim
    lines = [f"F = {full.host}.shape",
             f"n_scan = F[{d}]" + (f" - {full.delta}" if full.delta else ""),
             f"out = torch.empty(({', '.join(k.sizes)}{',' * (len(k.sizes) == 1)}), "
             f"dtype=torch.{k.out_dtype}, device={full.host}.device)"]
    rows = [ld for ld in k.loads if _strided(ld, LAYOUTS[k.layout])]
    for ld in rows:  # its lines as rows of a 2-D view (a copy only where no view exists)
        lines += [f"{ld.name}_2d = {ld.host}.reshape(-1, {ld.host}.shape[{d}])",
                  f"if {ld.name}_2d.stride(1) != 1:",
                  f"    {ld.name}_2d = {ld.name}_2d.contiguous()"]
    args = [ld.host if ld.kind == "scalar" else f"{ld.name}_2d" if ld in rows
            else f"{ld.host}.contiguous()" for ld in k.loads]
    args += [f"{ld.name}_2d.stride(0)" for ld in rows] + ["out", "n_scan"]
    if k.layout == "rows":
        lines += ["block_r = min(SCAN_BLOCK_R, triton.next_power_of_2(n_scan))",
                  f"grid = (math.prod(F[:{d}]),)"]
        blocks = "BLOCK_R=block_r"
    else:
        # a BLOCK_R × BLOCK_I tile holds about SCAN_BLOCK_R elements
        lines += [f"n_inner = math.prod(F[{d + 1}:])",
                  "block_r = min(max(SCAN_BLOCK_R // SCAN_BLOCK_I, 1), "
                  "triton.next_power_of_2(n_scan))",
                  f"grid = (math.prod(F[:{d}]), triton.cdiv(n_inner, SCAN_BLOCK_I))"]
        args.append("n_inner")
        blocks = "BLOCK_R=block_r, BLOCK_I=SCAN_BLOCK_I"
    args += [_host_arg(s) for s in scalars]
    lines += [f"{k.name}[grid](", f"    {', '.join(args)},",
              f"    {blocks}, num_warps=SCAN_WARPS)"]
    return tuple(lines)
