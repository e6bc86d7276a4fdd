"""The second kernel of a reduction over every element: one program combines the row
partials (row_reduce.py's partial_kernel), finalizes each reduction over the full count, and
evaluates what follows on those scalars. When the output is at the input's shape again
(x / ‖x‖) it writes those scalars instead, and a pointwise kernel computes the output."""

from __future__ import annotations

from dataclasses import dataclass

from . import pointwise
from .family import Piece
from .graph import Graph, Val
from .layout import Line, Refused, format_line, lines_for, runtime_scalars
from .pointwise import _arg, _host_arg
from .row_text import IDENTITY


@dataclass(frozen=True)
class FinishKernel:
    family = "row_reduce"  # the family that renders it (a class attribute, no field)
    name: str
    parts: tuple[tuple[str, str, str, str], ...]  # (partial, result name, combine, finalize)
    lines: tuple[Line, ...]  # over the finalized results
    results: tuple[str, ...]  # names stored, one per out
    outs: tuple[str, ...]  # the forward's names of the tensors written
    out_shapes: tuple[tuple[int, ...], ...]  # each out's shape (all ones)
    out_dtype: str


def plan(graph: Graph, reductions: list[Val], rows, leaves: dict) -> tuple:
    out = graph.vals[graph.output]
    names = {r.id: r.id.replace("_", "") for r in reductions}
    parts = tuple((part, names[r.id], r.combine, r.finalize)
                  for part, r in zip(rows.outs, reductions, strict=True))
    if all(s == 1 for s in out.shape):
        lines = lines_for(graph, [out.id], {}, names, lambda vid: False)
        return rows, FinishKernel("finish_kernel", parts, tuple(lines), (names[out.id],),
                                  ("out",), (out.shape,), out.dtype)
    cuts = _cuts(graph, {r.id for r in reductions})
    lines = lines_for(graph, cuts, {}, names, lambda vid: False)
    temps = tuple(f"t{i}" for i in range(len(cuts)))
    finish = FinishKernel("finish_kernel", parts, tuple(lines), tuple(names[c] for c in cuts),
                          temps, tuple(graph.vals[c].shape for c in cuts), "float32")
    known = dict(leaves) | {c: (t, t) for c, t in zip(cuts, temps, strict=True)}
    tail = pointwise.plan(graph, out.id, set(cuts), known, "pointwise_kernel", "out")
    return rows, finish, tail


def _cuts(graph: Graph, reduced: set[str]) -> list[str]:
    """The per-tensor scalars (downstream of a reduction) that values at the input's shape
    use: the finish kernel writes them and the pointwise kernel reads them."""
    scalar = set(reduced)
    for val in graph.vals.values():
        operands = [o for o in val.operands if isinstance(o, str)]
        if val.kind != "reduce" and operands and all(s == 1 for s in val.shape) \
                and any(o in scalar for o in operands):
            scalar.add(val.id)
    cuts = []
    for val in graph.vals.values():
        for o in val.operands:
            if isinstance(o, str) and o in scalar and val.id not in scalar and o not in cuts:
                cuts.append(o)
    if not cuts:
        raise Refused("the output uses no reduced value")
    return cuts


def render(k: FinishKernel):

    scalars = runtime_scalars(k.lines)
    body = ["offs = tl.arange(0, BLOCK)"]
    for _part, name, combine, _ in k.parts:
        body.append(f"acc_{name} = tl.full([BLOCK], {IDENTITY[combine]}, tl.float32)")
    body.append("for start in range(0, n_part, BLOCK):")
    body += ["    i = start + offs", "    mask = i < n_part"]
    for part, name, combine, _ in k.parts:
        load = f"tl.load({part}_ptr + i, mask=mask, other={IDENTITY[combine]})"
        body.append(f"    acc_{name} += {load}" if combine == "sum" else
                    f"    acc_{name} = tl.{combine}imum(acc_{name}, {load})")
    for _part, name, combine, finalize in k.parts:
        total = f"tl.{combine}(acc_{name}, axis=0, keep_dims=True)"
        body.append(f"{name} = " + finalize.format(acc=total, count="count"))
    body += [format_line(ln) for ln in k.lines]
    body += [f"tl.store({o}_ptr + tl.arange(0, 1), {r}.to({o}_ptr.dtype.element_ty))"
             for o, r in zip(k.outs, k.results, strict=True)]
    params = [f"{p[0]}_ptr" for p in k.parts] + [f"{o}_ptr" for o in k.outs] + \
        ["n_part", "count"] + [_arg(s) for s in scalars] + ["BLOCK: tl.constexpr"]
    kernel = f"\n@triton.jit\ndef {k.name}({', '.join(params)}):\n" + \
        "\n".join("    " + b for b in body) + "\n"
    first = k.parts[0][0]
    launch = [f"{o} = torch.empty({shape!r}, dtype=torch.{k.out_dtype}, device={first}.device)"
              for o, shape in zip(k.outs, k.out_shapes, strict=True)]
    args = [p[0] for p in k.parts] + list(k.outs) + [f"{first}.numel()", "math.prod(F)"] + \
        [_host_arg(s) for s in scalars]
    launch += [f"{k.name}[(1,)](", f"    {', '.join(args)},",
               "    BLOCK=FINISH_BLOCK, num_warps=RED_WARPS)"]
    return Piece(kernel, tuple(launch))
