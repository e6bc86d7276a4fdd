"""Pointwise: any graph of pointwise ops and views over one output shape, as one kernel that
loads each operand once at its broadcast strides, computes in fp32 and stores once.

Operands at the output's own shape are read at the flat offset; the others (a bias, a
column, a scalar tensor, a transposed view) through the output's index along each dim they
have, times their stride there, so broadcasting costs a few integer ops and no copies.
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph import Decline, Graph
from .layout import Line, Load, Refused, dims_of, format_line, lines_for, runtime_scalars
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


class Pointwise:
    name = "pointwise"
    knobs = {"PW_BLOCK": 1024, "PW_WARPS": 4}

    def match(self, graph: Graph, ctx) -> tuple | Decline | None:
        if any(v.kind == "reduce" for v in graph.vals.values()):
            return None
        try:
            return (plan(graph, graph.output, set(), ctx.leaves, "pointwise_kernel", "out"),)
        except Refused as e:
            return Decline(graph.vals[graph.output].node, graph.ops[-1], str(e))

    def render(self, k: PointwiseKernel, tune: dict[str, int]):
        from .families import Piece

        scalars = runtime_scalars(k.lines)
        strided = [ld for ld in k.loads if ld.kind == "strided"]
        used = sorted({d for ld in strided for d in ld.dims if d is not None})
        sizes = list(range(max(used[0], 1), k.rank)) if used else []
        params = [f"{ld.name}_ptr" for ld in k.loads] + ["out_ptr", "n"] + \
            [f"size{d}" for d in sizes] + \
            [f"{ld.name}_stride{j}" for ld in strided for j, d in enumerate(ld.dims)
             if d is not None] + [_arg(s) for s in scalars]
        body = _index(used, k.rank) + [_load(ld) for ld in k.loads] + \
            [format_line(line) for line in k.lines]
        kernel = fill(KERNEL, name=k.name, params=", ".join(params),
                      body="\n".join("    " + b for b in body), result=k.result)
        args = [f"{ld.host}.contiguous()" if ld.kind == "flat" else ld.host
                for ld in k.loads] + [k.out, f"{k.out}.numel()"] + \
            [f"{k.out}.shape[{d}]" for d in sizes] + \
            [f"{ld.host}.stride({j})" for ld in strided for j, d in enumerate(ld.dims)
             if d is not None] + [_host_arg(s) for s in scalars]
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
    val = graph.vals[root]
    rank = len(val.shape)
    identity = tuple(None if s == 1 else d for d, s in enumerate(val.shape))
    maps = dims_of(graph, {root: identity}, cut)
    loads, names = [], {}
    for key, m in maps.items():
        if not isinstance(key, tuple):
            continue
        leaf = graph.vals[key[0]]
        base, host = leaves[key[0]]
        kname = base if not any(ld.host == host for ld in loads) else f"{base}_{len(loads)}"
        flat = leaf.shape == val.shape and all(d in (j, None) for j, d in enumerate(m))
        loads.append(Load(kname, host, m, "flat" if flat else "strided", leaf.dtype))
        names[key] = kname
    if not loads:
        raise Refused("the output depends on no tensor the kernel could load")
    lines = lines_for(graph, [root], maps, names, lambda vid: True)
    return PointwiseKernel(name, rank, tuple(loads), tuple(lines), names[root], out,
                           val.dtype, _sizes(val.shape, loads))


def _sizes(shape: tuple[int, ...], loads: list[Load]) -> tuple[str, ...]:
    sizes = []
    for d, s in enumerate(shape):
        owner = next(((ld, j) for ld in loads for j, e in enumerate(ld.dims) if e == d), None)
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
    terms = [f"i{d} * {ld.name}_stride{j}" for j, d in enumerate(ld.dims) if d is not None]
    if not terms:  # one element, every lane reads it
        return f"{ld.name} = tl.load({ld.name}_ptr){cast}"
    return f"{ld.name} = tl.load({ld.name}_ptr + {' + '.join(terms)}, mask=mask, other=0){cast}"


def _arg(spec) -> str:
    return f"init{spec['init']}" if isinstance(spec, dict) else f"arg{spec.index}"


def _host_arg(spec) -> str:
    """init-bound scalars live on the module; forward numbers are bound to argN up front."""
    return f"self.init{spec['init']}" if isinstance(spec, dict) else f"arg{spec.index}"
