"""Pointwise: any graph of pointwise ops and views over one output shape, as one kernel that
loads each operand once at its broadcast strides, computes in fp32 and stores once.

Operands at the output's own shape are read at the flat offset; the others (a bias, a
column, a scalar tensor, a transposed view) through the output's index along each dim they
have, times their stride there, so broadcasting costs a few integer ops and no copies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .family import Piece
from .graph import Decline, Graph, Val
from .layout import (
    HostArg,
    Line,
    Load,
    Refused,
    Shift,
    cat_name,
    dims_of,
    format_line,
    lines_for,
    runtime_scalars,
)
from .render import fill

KERNEL = '''
@triton.jit
def $name($params, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
$body
    tl.store(out_ptr + offs, $result.to(out_ptr.dtype.element_ty), mask=mask)
'''


@dataclass(frozen=True)
class PointwiseKernel:
    family = "pointwise"  # the family that renders it (a class attribute, no field)
    name: str  # the kernel function's name
    rank: int
    loads: tuple[Load, ...]
    lines: tuple[Line, ...]
    result: str
    out: str  # the forward's name for the tensor it writes
    out_dtype: str
    sizes: tuple[str, ...]  # the forward's expression for each output dim
    cats: tuple = ()  # (kernel name, kernel dim, forward expressions of parts 1…'s starts)


class Pointwise:
    name = "pointwise"
    reads = "graph"
    knobs = {"PW_BLOCK": 1024, "PW_WARPS": 4}

    def match(self, graph: Graph, ctx) -> tuple | Decline | None:
        if any(v.kind == "reduce" for v in graph.vals.values()):
            return None
        try:
            return (plan(graph, graph.output, set(), ctx.leaves, "pointwise_kernel", "out"),)
        except Refused as e:
            return Decline(graph.vals[graph.output].node, graph.ops[-1], str(e))

    def render(self, k: PointwiseKernel, tune: dict[str, int]):

        scalars = runtime_scalars(k.lines)
        strided = [ld for ld in k.loads if ld.kind == "strided"]
        used = sorted({_dim(d) for ld in strided for d in ld.dims if d is not None} |
                      {f for _, f, _ in k.cats})
        sizes = list(range(max(used[0], 1), k.rank)) if used else []
        starts = [f"{c}_o{j + 1}" for c, _, ends in k.cats for j in range(len(ends))]
        params = [f"{ld.name}_ptr" for ld in k.loads] + ["out_ptr", "n"] + \
            [f"size{d}" for d in sizes] + \
            [f"{ld.name}_stride{j}" for ld in strided for j, d in enumerate(ld.dims)
             if d is not None] + [_arg(s) for s in scalars] + starts
        body = _index(used, k.rank) + _shifts(k) + [_load(ld) for ld in k.loads] + \
            [format_line(line) for line in k.lines]
        kernel = fill(KERNEL, name=k.name, params=", ".join(params),
                      body="\n".join("    " + b for b in body), result=k.result)
        args = [f"{ld.host}.contiguous()" if ld.kind == "flat" else ld.host
                for ld in k.loads] + [k.out, f"{k.out}.numel()"] + \
            [f"{k.out}.shape[{d}]" for d in sizes] + \
            [f"{ld.host}.stride({j})" for ld in strided for j, d in enumerate(ld.dims)
             if d is not None] + [_host_arg(s) for s in scalars] + \
            [e for _, _, ends in k.cats for e in ends]
        launch = (f"{k.out} = torch.empty(({', '.join(k.sizes)}{',' * (len(k.sizes) == 1)}), "
                  f"dtype=torch.{k.out_dtype}, device={k.loads[0].host}.device)",
                  f"{k.name}[(triton.cdiv({k.out}.numel(), PW_BLOCK),)](",
                  f"    {', '.join(args)},",
                  "    BLOCK=PW_BLOCK, num_warps=PW_WARPS)")
        return Piece(kernel, launch)


def plan(graph: Graph, root: str, cut: set[str], leaves: dict, name: str, out: str
         ) -> PointwiseKernel:
    """The kernel computing `root` at its own shape; `cut` values were written by earlier
    kernels and are loaded like inputs (their forward names are in `leaves`)."""
    graph = unshared(graph)
    val = graph.vals[root]
    rank = len(val.shape)
    identity = tuple(None if s == 1 else d for d, s in enumerate(val.shape))
    maps = dims_of(graph, {root: identity}, cut, cats=True)
    loads, names = [], {}
    for key, m in maps.items():
        if not isinstance(key, tuple):
            continue
        leaf = graph.vals[key[0]]
        base, host = leaves[key[0]]
        kname = base if not any(ld.host == host for ld in loads) else f"{base}_{len(loads)}"
        flat = leaf.shape == val.shape and all(d in (j, None) for j, d in enumerate(m)) \
            and not is_part(leaf)
        loads.append(Load(kname, host, m, "flat" if flat else "strided", leaf.dtype))
        names[key] = kname
    if not loads:
        raise Refused("the output depends on no tensor the kernel could load")
    for ld in loads:
        if len({(d.cat, d.part) for d in ld.dims if isinstance(d, Shift)}) > 1:
            raise Refused(f"{ld.host} is loaded inside two cat parts at once")
    lines = lines_for(graph, [root], maps, names, lambda vid: True)
    cats = tuple(_cat(graph, v, maps[v.id], loads) for v in graph.vals.values()
                 if v.kind == "cat" and v.id in maps)
    whole = {f: " + ".join(f"({e})" for e in lengths) for _, f, _, lengths in cats}
    return PointwiseKernel(name, rank, tuple(loads), tuple(lines), names[root], out,
                           val.dtype, _sizes(val.shape, loads, whole),
                           tuple(c[:3] for c in cats))


def is_part(leaf: Val) -> bool:
    """A narrow or select of a tensor (graph_parts.py): strided, so loaded at its strides
    (a flat load would pass `.contiguous()`, a copy of it)."""
    src = leaf.source
    return (src[0] == "reshape" and len(src) > 3 and bool(src[3])) or \
        (src[0] == "temp" and src[2:] == ("part",))


def unshared(graph: Graph) -> Graph:
    """Each part of a cat computed on its own copy of the values it reads (up to the
    leaves): a part is computed at its shifted index, so a value two parts share
    (rotate_half's `cat((freqs, freqs))`) is computed once per part."""
    if not any(v.kind == "cat" for v in graph.vals.values()):
        return graph
    out: dict[str, Val] = {}
    for val in graph.vals.values():
        if val.kind == "cat":
            val = replace(val, operands=tuple(_copy(graph, p, f"_{val.id}c{k}", out)
                                              for k, p in enumerate(val.operands)))
        out[val.id] = val
    return replace(graph, vals=out)


def _copy(graph: Graph, vid: str, suffix: str, out: dict) -> str:
    val = graph.vals[vid]
    if val.kind not in ("op", "view", "cat"):
        return vid
    new = vid + suffix
    if new not in out:
        operands = tuple(_copy(graph, o, suffix, out) if isinstance(o, str) else o
                         for o in val.operands)
        out[new] = replace(val, id=new, operands=operands)
    return new


def _cat(graph: Graph, val: Val, m: tuple, loads: list[Load]) -> tuple:
    """(kernel name, kernel dim, starts of parts 1…, lengths of all parts): each length is
    the run-time size of a tensor the part loads along its shifted dim."""
    f, lengths = m[val.dims[0]], []
    for k, part in enumerate(val.operands):
        if graph.vals[part].shape[val.dims[0]] == 1:
            lengths.append("1")
            continue
        shift = Shift(f, val.id, k)
        owner = next(((ld, j) for ld in loads for j, e in enumerate(ld.dims) if e == shift),
                     None)
        if owner is None:
            raise Refused(f"part {k} of the cat of node {val.node} loads no tensor giving "
                          "its length")
        lengths.append(f"{owner[0].host}.shape[{owner[1]}]")
    starts = tuple(" + ".join(lengths[:k]) for k in range(1, len(lengths)))
    return cat_name(val.id), f, starts, tuple(lengths)


def _dim(entry) -> int:
    return entry.dim if isinstance(entry, Shift) else entry


def _shifts(k: PointwiseKernel) -> list[str]:
    """Each cat part's index along the cat dim and where it lies."""
    lines = []
    for c, f, starts in k.cats:
        for j in range(len(starts) + 1):
            lo = "0" if j == 0 else f"{c}_o{j}"
            lines.append(f"i{f}_{c}_{j} = i{f} - {lo}")
            inside = [f"(i{f} >= {lo})"] if j else []
            inside += [f"(i{f} < {c}_o{j + 1})"] if j < len(starts) else []
            lines.append(f"in_{c}_{j} = {' & '.join(['mask', *inside])}")
    return lines


def _sizes(shape: tuple[int, ...], loads: list[Load], whole: dict | None = None
           ) -> tuple[str, ...]:
    sizes = []
    for d, s in enumerate(shape):
        owner = next(((ld, j) for ld in loads for j, e in enumerate(ld.dims) if e == d), None)
        if s != 1 and owner is None and d in (whole or {}):
            sizes.append(whole[d])
            continue
        if s != 1 and owner is None:
            raise Refused(f"dim {d} of the output comes from no loaded tensor (a constant "
                          "tensor sets it)")
        sizes.append("1" if s == 1 else f"{owner[0].host}.shape[{owner[1]}]")
    return tuple(sizes)


def _index(used: list[int], rank: int) -> list[str]:
    """The output's index along the dims some strided operand needs, from the flat offset."""
    if not used:
        return []
    lines, last = ["# the output's index along each dim a broadcast operand has",
                   "rest = offs"], used[0]
    for d in range(rank - 1, last - 1, -1):
        if d == 0:
            lines.append("i0 = rest")
            break
        lines.append(f"i{d} = rest % size{d}")
        if d > last:
            lines.append(f"rest = rest // size{d}")
    return lines


def _load(ld: Load) -> str:
    cast = "" if ld.dtype == "bool" else ".to(tl.float32)"
    if ld.kind == "flat":
        return f"{ld.name} = tl.load({ld.name}_ptr + offs, mask=mask, other=0){cast}"
    terms = [f"{_index_name(d)} * {ld.name}_stride{j}" for j, d in enumerate(ld.dims)
             if d is not None]
    if not terms:  # one element, every lane reads it
        return f"{ld.name} = tl.load({ld.name}_ptr){cast}"
    shifts = {d for d in ld.dims if isinstance(d, Shift)}
    mask = next((f"in_{cat_name(d.cat)}_{d.part}" for d in shifts), "mask")
    return f"{ld.name} = tl.load({ld.name}_ptr + {' + '.join(terms)}, mask={mask}, " \
        f"other=0){cast}"


def _index_name(d) -> str:
    return f"i{d.dim}_{cat_name(d.cat)}_{d.part}" if isinstance(d, Shift) else f"i{d}"


def _arg(spec) -> str:
    if isinstance(spec, HostArg):
        return spec.kernel
    return f"init{spec['init']}" if isinstance(spec, dict) else f"arg{spec.index}"


def _host_arg(spec) -> str:
    """init-bound scalars live on the module; forward numbers are bound to argN up front."""
    if isinstance(spec, HostArg):
        return spec.host
    return f"self.init{spec['init']}" if isinstance(spec, dict) else f"arg{spec.index}"
