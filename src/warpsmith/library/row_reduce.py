"""Row reductions with a pointwise prologue and epilogue: sums, means, max/min, norms,
variances (and the layer norms, softmaxes and losses graph.py writes out as them) over a run
of adjacent dims, or over all dims but a run of them, in one kernel per reduced row.

The reduced tensor F is viewed as (outer, reduced, inner). With the reduced dims last
("rows") a program owns one row; otherwise ("cols") it owns BLOCK_I adjacent inner columns
and walks the reduced dim in BLOCK_R × BLOCK_I tiles, so loads stay contiguous. With reduced dims
on both sides of the kept ones ("split": batch norm's per-channel statistics over (N, H, W)),
F is (pre, kept, post) and a program owns one kept index, its row the pre × post elements
around it. A reduction
that needs another's result (the deviations of a variance) gets a pass of its own; an output
at F's shape (a normalisation) is a last pass that stores. A reduction over every dim is
split: row partials, then a one-program finish kernel (row_finish.py), then a pointwise
kernel if the output is at F's shape again (x / ‖x‖).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import row_chunks, row_finish, row_split
from .graph import Decline, Graph, Val
from .layout import Line, Load, Refused, dims_of, lines_for
from .row_text import render_row


@dataclass(frozen=True)
class Reduction:
    name: str  # the finalized value's name
    combine: str  # "sum", "max", "min", "argmax", "argmin"
    finalize: str  # over {acc} and {count}
    source: str  # the accumulated value's name


@dataclass(frozen=True)
class Pass:
    before: tuple[Line, ...]  # per-row values it needs that earlier passes made possible
    loop: tuple[Line, ...]  # computed for every element, inside the loop
    loads: tuple[str, ...]  # names of the loads the loop reads
    reductions: tuple[Reduction, ...]


@dataclass(frozen=True)
class RowKernel:
    family = "row_reduce"  # the family that renders it (a class attribute, no field)
    name: str
    layout: str  # "rows", "cols" or "split" (the reduced dims on both sides of the kept)
    first: int  # the reduced dims of F: first..last; the kept ones when "split"
    last: int
    loads: tuple[Load, ...]
    passes: tuple[Pass, ...]  # the last one has no reductions when the output is at F's shape
    store: str  # "group" (one value a row), "full" (F's shape) or "partial"
    results: tuple[str, ...]  # names stored: the output, or each reduction's accumulator
    outs: tuple[str, ...]  # the forward's names of the tensors written
    out_dtype: str
    out_sizes: tuple[str, ...]  # the output's shape, over `F` (the forward's tuple)
    shape_of: str  # the forward's expression of a tensor shaped like F


class RowReduce:
    name = "row_reduce"
    reads = "graph"
    knobs = {"RED_BLOCK_R": 1024, "RED_BLOCK_I": 32, "RED_WARPS": 4, "FINISH_BLOCK": 1024,
             **row_chunks.KNOBS}

    def match(self, graph: Graph, ctx) -> tuple | Decline | None:
        reductions = [v for v in graph.vals.values() if v.kind == "reduce"]
        if not reductions:
            return None
        try:
            return plan(graph, reductions, ctx.leaves)
        except _Declined as e:
            return e.decline
        except Refused as e:
            return Decline(reductions[0].node, graph.ops[reductions[0].node], str(e))

    def render(self, kernel, tune: dict[str, int]):
        if isinstance(kernel, row_finish.FinishKernel):
            return row_finish.render(kernel)
        return render_row(kernel)


class _Declined(Exception):
    def __init__(self, decline: Decline):
        self.decline = decline


def plan(graph: Graph, reductions: list[Val], leaves: dict) -> tuple:
    src = graph.vals[reductions[0].operands[0]]
    shape, dims = src.shape, reductions[0].dims
    for red in reductions[1:]:
        if (graph.vals[red.operands[0]].shape, red.dims) != (shape, dims):
            try:  # one stage after the other, when the later reduces what the first made
                return row_split.stages(graph, reductions, leaves, plan)
            except Refused as e:
                raise _Declined(Decline(red.node, graph.ops[red.node], (
                    f"reduces a {graph.vals[red.operands[0]].shape} tensor over dims "
                    f"{red.dims}, another reduction of the graph a {shape} tensor over dims "
                    f"{dims}, and the graph does not cut into two stages: {e}"))) from e
    if list(dims) != list(range(dims[0], dims[-1] + 1)) and _kept_run(shape, dims) is None:
        raise Refused(f"reduces dims {dims}, which are neither adjacent nor all but one run "
                      "of adjacent dims")
    if len(dims) == len(shape) and len(shape) >= 2:
        return _split(graph, reductions, shape, leaves)
    return (_row_kernel(graph, reductions, shape, dims, leaves, "row_kernel"),)


def _row_kernel(graph, reductions, shape, dims, leaves, name, partial=False) -> RowKernel:
    out = graph.vals[graph.output]
    # at F's shape, up to dims of size 1 (InstanceNorm on x.unsqueeze(1), squeezed back)
    full_out = not partial and _unit_free(out.shape) == _unit_free(shape) \
        and any(shape[d] != 1 for d in dims)
    roots = {r.operands[0]: _identity(shape) for r in reductions}
    if not partial:
        roots[out.id] = _squeezed(out.shape, shape) if full_out else \
            _group_map(out, shape, dims)
    maps = dims_of(graph, roots, set())
    reduced = set(dims)

    def varies(key) -> bool:
        m = key[1] if isinstance(key, tuple) else maps.get(key, ())
        return any(d in reduced for d in m if d is not None)

    loads, names, inner = _loads(graph, maps, shape, dims, leaves, varies)
    passes = _passes(graph, reductions, maps, names, (loads, inner), varies)
    if partial:
        results = tuple(r.name for r in passes[0].reductions)
    elif full_out:
        passes.append(_pass(graph, [], [out.id], maps, names, (loads, inner), varies))
        if not passes[-1].loop:
            raise Refused("the output is computed from no value at the reduced tensor's shape")
        results = (passes[-1].loop[-1].name,)  # the target comes last in dataflow order
    else:
        tail = lines_for(graph, [out.id], maps, names, varies)
        passes.append(Pass(tuple(tail), (), (), ()))
        results = (names[out.id],)
    full = next((ld for ld in loads if ld.kind == "full"), None)
    if full is None:
        raise Refused("no operand has the reduced tensor's own shape, so the kernel cannot "
                      "read F's sizes from one")
    kind = "partial" if partial else "full" if full_out else "group"
    outs = tuple(f"part{i}" for i in range(len(results))) if partial else ("out",)
    layout, first, last = _layout(shape, dims)
    return RowKernel(name, layout, first, last, tuple(loads), tuple(passes), kind,
                     results, outs, "float32" if partial else out.dtype,
                     _out_sizes(out, shape, dims, kind), _shaped_like_f(full, shape))


def _layout(shape, dims) -> tuple[str, int, int]:
    """(layout, first, last): "rows" or "cols" over the reduced dims first..last; "split"
    around the kept dims first..last."""
    if list(dims) == list(range(dims[0], dims[-1] + 1)):
        return ("rows" if dims[-1] == len(shape) - 1 else "cols"), dims[0], dims[-1]
    return ("split", *_kept_run(shape, dims))


def _kept_run(shape, dims) -> tuple[int, int] | None:
    """The kept dims first..last when the reduced ones are all the others, on both sides of
    them (training-mode batch norm: (N, ·, H, W) reduced, C kept); else None."""
    kept = [d for d in range(len(shape)) if d not in dims]
    if not kept or kept != list(range(kept[0], kept[-1] + 1)) or kept[0] == 0 \
            or kept[-1] == len(shape) - 1:
        return None
    return kept[0], kept[-1]


def _shaped_like_f(full: Load, shape) -> str:
    """The forward's expression of a tensor shaped like F: the full load, viewed with F's
    dims of size 1 where it has none (a free view)."""
    if len(full.dims) == len(shape):
        return full.host
    sizes = ["1"] * len(shape)
    for j, d in enumerate(full.dims):
        if d is not None:
            sizes[d] = f"{full.host}.shape[{j}]"
    return f"{full.host}.view({', '.join(sizes)})"


def _unit_free(shape) -> list[int]:
    return [s for s in shape if s != 1]


def _squeezed(own, shape) -> tuple:
    """The map of a tensor holding F's elements in F's order, dims of size 1 aside."""
    dims = iter(d for d, s in enumerate(shape) if s != 1)
    return tuple(None if s == 1 else next(dims) for s in own)


def _identity(shape) -> tuple:
    return tuple(None if s == 1 else d for d, s in enumerate(shape))


def _group_map(out: Val, shape, dims) -> tuple:
    kept = [d for d, s in enumerate(shape) if d not in dims and s != 1]
    if [s for s in out.shape if s != 1] != [shape[d] for d in kept]:
        raise Refused(f"the output's shape {out.shape} is neither the reduced tensor's "
                      f"{shape} nor its shape without the reduced dims")
    order = iter(kept)
    return tuple(None if s == 1 else next(order) for s in out.shape)


def _loads(graph, maps, shape, dims, leaves, varies) -> tuple[list[Load], dict, dict]:
    """The loads; names of those read once per row; names of those read inside the loops."""
    loads, names, inner = [], {}, {}
    kept = [d for d, s in enumerate(shape) if d not in dims and s != 1]
    red = [d for d in dims if shape[d] != 1]
    layout_rows = dims[-1] == len(shape) - 1
    for key, m in maps.items():
        if not isinstance(key, tuple):
            continue
        leaf = graph.vals[key[0]]
        refs = [d for d in m if d is not None]
        if refs == [d for d in range(len(shape)) if shape[d] != 1]:
            kind = "full"
        elif refs == red and refs:
            kind = "reduced"
        elif layout_rows and refs and refs == red[len(red) - len(refs):]:
            # the last reduced dims only: class positions over a loss's (B, S, V) rows
            kind = "reduced_tail"
        elif layout_rows and red and refs[len(refs) - len(red):] == red \
                and len(refs) > len(red) and refs[:len(refs) - len(red)] == \
                kept[len(kept) - len(refs) + len(red):]:
            # the last kept dims and the reduced ones: group norm's (G, C/G) weight
            kind = "suffix"
        elif layout_rows and red and len(refs) > len(red) and \
                refs[len(refs) - len(red):] == red and \
                refs[:len(refs) - len(red)] == kept[:len(refs) - len(red)]:
            # the first kept dims and the reduced ones: DiT's shift and scale, (B, 1, D)
            # over a LayerNorm of (B, T, D)
            kind = "prefix"
        elif layout_rows and _pixel_suffix(refs, kept, red):
            # … and only the first reduced ones: its (G, C/G, 1) weight over (C/G, pixels)
            kind = "suffix_px"
        elif refs == kept and refs:
            kind = "group"
        elif layout_rows and refs and refs == kept[len(kept) - len(refs):]:
            kind = "group_tail"  # the row's last kept dims only: a (C, 1, 1) bias per channel
        elif layout_rows and refs and _kept_run_of(refs, kept):
            kind = "group_run"  # a run of the row's kept dims: ALiBi's (H,) slope per row
        elif not refs:
            kind = "scalar"
        else:
            raise Refused(f"operand {leaves[key[0]][1]} is indexed by dims {tuple(refs)} of "
                          f"the reduced tensor; the row kernel reads an operand whole, along "
                          f"the reduced dims {tuple(red)}, along the kept dims "
                          f"{tuple(kept)}, or along the first or last kept dims and the "
                          "reduced ones")
        base, host = leaves[key[0]]
        kname = base if not any(ld.name == base for ld in loads) else f"{base}_{len(loads)}"
        loads.append(Load(kname, host, m, kind, leaf.dtype))
        (inner if varies(key) else names)[key] = kname
    return loads, names, inner


def _kept_run_of(refs: list, kept: list) -> bool:
    """Indexed by adjacent kept dims only, in order (neither the first nor the last ones:
    those are "prefix" and "group_tail" loads)."""
    at = kept.index(refs[0]) if refs[0] in kept else -1
    return at >= 0 and kept[at:at + len(refs)] == refs


def _pixel_suffix(refs: list, kept: list, red: list) -> bool:
    """Indexed by the last kept dims and a proper prefix of the reduced ones."""
    for j in range(1, len(red)):
        head = refs[:len(refs) - j]
        if refs[len(refs) - j:] == red[:j] and head and head == kept[len(kept) - len(head):]:
            return True
    return False


def _passes(graph, reductions, maps, names, loads, varies) -> list[Pass]:
    depth: dict[str, int] = {}
    for red in reductions:  # in dataflow order: an earlier one is never deeper
        depth[red.id] = 1 + max((depth[r] for r in _upstream(graph, red.operands[0])
                                 if r in depth), default=-1)
    passes = []
    for level in range(max(depth.values()) + 1):
        group = [r for r in reductions if depth[r.id] == level]
        passes.append(_pass(graph, group, [r.operands[0] for r in group], maps, names, loads,
                            varies))
    return passes


def _pass(graph, group, targets, maps, names, loads, varies) -> Pass:
    loads, inner = loads
    scope = dict(names) | inner
    lines = lines_for(graph, targets, maps, scope, varies)
    before = tuple(ln for ln in lines if not ln.varies)
    loop = tuple(ln for ln in lines if ln.varies)
    for vid, name in scope.items():
        if not isinstance(vid, tuple) and not varies(vid):
            names[vid] = name
    reds = []
    for red in group:
        src = red.operands[0]
        source = scope.get(src) or scope[(src, _identity(graph.vals[src].shape))]
        reds.append(Reduction(red.id.replace("_", ""), red.combine, red.finalize, source))
        names[red.id] = red.id.replace("_", "")
    used = {o for ln in loop for o in ln.operands if isinstance(o, str)} | \
        {r.source for r in reds}
    return Pass(before, loop, tuple(ld.name for ld in loads if ld.name in used
                                    and ld.kind in ("full", "reduced", "suffix", "prefix",
                                                    "suffix_px", "reduced_tail")),
                tuple(reds))


def _upstream(graph: Graph, vid: str) -> set[str]:
    seen, stack = set(), [vid]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        stack.extend(o for o in graph.vals[v].operands if isinstance(o, str))
    return seen


def _out_sizes(out: Val, shape, dims, kind) -> tuple[str, ...]:
    if kind == "full":
        return tuple("1" if d is None else f"F[{d}]" for d in _squeezed(out.shape, shape))
    if kind == "partial":
        return (" * ".join(f"F[{d}]" for d in range(dims[0])) or "1",)
    m = _group_map(out, shape, dims)
    return tuple("1" if d is None else f"F[{d}]" for d in m)


def _split(graph: Graph, reductions: list[Val], shape, leaves) -> tuple:
    """Every dim reduced: rows over the last one or two dims write partial accumulators, the
    finish kernel combines them; one program reading all of F would use one SM."""
    tail = (len(shape) - 1,) if len(shape) == 2 else (len(shape) - 2, len(shape) - 1)
    if any(r.combine.startswith("arg") for r in reductions):
        raise Refused("an argmax/argmin over every element (a flat index) is not written; "
                      "over some dims it is")
    for red in reductions:
        if _upstream(graph, red.operands[0]) & {r.id for r in reductions}:
            raise Refused("a reduction over every element that needs another's result (a "
                          "centred statistic) would need a third kernel, not written yet")
    rows = _row_kernel(graph, reductions, shape, tail, leaves, "partial_kernel", partial=True)
    return row_finish.plan(graph, reductions, rows, leaves)
