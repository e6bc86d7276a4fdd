"""Where each value of a scan kernel (scan.py) sits along the scanned dim.

The kernel's tile lanes r run along the scan. A value reached through a flip sees lane r at
the far end (n − 1 − r), one reached through a slice x[start:] at r + start, and the part after
a leading constant in a cat at r + k. `place` walks down from the scan to the output and up
from the scan (and from what the epilogue combines with it) to the leaves, gives each value
its `Pos`, and writes the prologue and epilogue lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph import Graph, Val
from .layout import Line, Refused


@dataclass(frozen=True)
class Pos:
    """Lane r sits at sign·r + offset along the dim, plus n_scan when `far` (the offset then
    counts from the end, as after a flip)."""

    sign: int = 1
    offset: int = 0
    far: bool = False

    def flipped(self, delta: int) -> Pos:
        # in a value n_scan + delta long, position p is n_scan + delta − 1 − p from the start
        return Pos(-self.sign, delta - 1 - self.offset, not self.far)

    def shifted(self, by: int) -> Pos:
        return Pos(self.sign, self.offset + by, self.far)

    def text(self) -> str:
        terms = ["n_scan"] if self.far else []
        terms.append(("+ r" if terms else "r") if self.sign > 0 else "- r")
        if self.offset:
            terms.append(f"{'+' if self.offset > 0 else '-'} {abs(self.offset)}")
        text = " ".join(terms)
        return "-" + text[2:] if text.startswith("- ") else text


@dataclass(frozen=True)
class ScanLoad:
    name: str  # the kernel's name for it
    host: str  # the forward's expression for the tensor
    pos: Pos | None  # None: read once per line
    delta: int  # its length along the scanned dim, minus n_scan
    dtype: str
    kind: str  # "full", "line", "group" or "scalar" (_shape_kind)


@dataclass(frozen=True)
class Placed:
    loads: tuple[ScanLoad, ...]
    prologue: tuple[Line, ...]
    source: str
    result: str
    epilogue: tuple[Line, ...]
    stored: str
    store: Pos
    out_delta: int
    fill: tuple


def place(graph: Graph, scan: Val, leaves: dict) -> Placed:
    down, edges, fill = _downstream(graph, scan)
    ups, edges = _upstream(graph, scan, edges)
    names: dict = {}
    loads = _loads(graph, scan, edges, leaves, names)
    prologue, epilogue = [], []
    for val in graph.vals.values():
        if val.id not in ups and val.id not in down:
            continue
        if val.kind == "op":
            operands = tuple(_name(names, edges, val.id, o) if isinstance(o, str) else o
                             for o in val.operands)
            name = f"v{val.node}" if val.id == f"v{val.node}" else val.id.replace("_", "")
            (epilogue if val.id in down else prologue).append(Line(name, val.expr, operands,
                                                                  True))
            names[val.id] = name
        elif val.kind == "scan":
            names[val.id] = f"v{val.node}"
        else:  # flip, slice, views, cat: the same registers, seen at another position
            src = val.operands[-1] if val.kind == "cat" else val.operands[0]
            names[val.id] = _name(names, edges, val.id, src)
    out = graph.vals[graph.output]
    return Placed(tuple(loads), tuple(prologue), _name(names, edges, scan.id, scan.operands[0]),
                  names[scan.id], tuple(epilogue), names[out.id], down[out.id],
                  _delta(graph, out.id, scan), fill)


def _name(names: dict, edges: dict, user: str, vid: str) -> str:
    return names.get((vid, edges.get((user, vid)))) or names[vid]


def _delta(graph: Graph, vid: str, scan: Val) -> int:
    """Its length along the scanned dim minus the scan's (dims aligned to the last)."""
    shape = graph.vals[vid].shape
    d = scan.dims[0] - (len(scan.shape) - len(shape))
    return (shape[d] if d >= 0 else 1) - scan.shape[scan.dims[0]]


def _shape_kind(graph: Graph, vid: str, scan: Val) -> str:
    """How a value broadcasts against the scanned shape F (its dims aligned to F's last):
    "full" (F's shape, any length along the dim), "line" (only along the dim: a weight per
    position), "group" (everything but the dim: a value per line) or "scalar"."""
    val, d, shape = graph.vals[vid], scan.dims[0], scan.shape
    if all(s == 1 for s in val.shape):
        return "scalar"
    lead = len(shape) - len(val.shape)
    padded = (1,) * max(lead, 0) + val.shape
    others = [j for j in range(len(shape)) if j != d]
    along = lead >= 0 and (padded[d] != 1 or shape[d] == 1)
    if lead >= 0 and all(padded[j] == shape[j] for j in others):
        return "full" if along else "group"
    if along and all(padded[j] == 1 for j in others):
        return "line"
    raise Refused(f"{_where(val)} has shape {val.shape}, which broadcasts into a scan of shape "
                  f"{shape} neither whole, along the dim only, across it only nor as one "
                  "element")


def _per_lane(graph: Graph, vid: str, scan: Val) -> bool:
    """Whether a value differs from lane to lane (else it is read once per line)."""
    return _shape_kind(graph, vid, scan) in ("full", "line")


def _downstream(graph: Graph, scan: Val) -> tuple[dict, dict, tuple]:
    """Each value after the scan with its Pos; the positions at which the epilogue wants the
    values it combines with them ((user, operand) -> Pos); a leading constant part."""
    d, down, edges, fill = scan.dims[0], {scan.id: Pos()}, {}, ()
    for val in graph.vals.values():
        srcs = [o for o in val.operands if isinstance(o, str) and o in down]
        if val.id == scan.id or not srcs:
            continue
        if val.kind == "op":
            if len({down[o] for o in srcs}) > 1:
                raise Refused(f"{_where(val)} combines scanned values in two orders")
            down[val.id] = down[srcs[0]]
            for o in val.operands:
                if isinstance(o, str) and o not in down:
                    lanes = _per_lane(graph, o, scan)
                    edges[(val.id, o)] = down[val.id] if lanes else None
        elif val.kind == "flip" and val.dims == (d,):
            down[val.id] = down[srcs[0]].flipped(_delta(graph, srcs[0], scan))
        elif val.kind == "view" and val.shape == graph.vals[srcs[0]].shape:
            down[val.id] = down[srcs[0]]
        elif val.kind == "cat" and val.dims == (d,) and val.id == graph.output:
            fill = _leading(graph, val, down, scan)
            down[val.id] = down[val.operands[-1]].shifted(fill[0])
        else:
            raise Refused(f"{_where(val)}: a {val.kind} after the scan (pointwise ops, flips "
                          "along the scanned dim and a leading constant part of a cat are "
                          "placed)")
        _shape_kind(graph, val.id, scan)
    if graph.output not in down:
        raise Refused("the output does not depend on the scan")
    if _delta(graph, graph.output, scan) != (fill[0] if fill else 0):
        raise Refused("the output has positions along the dim that no lane of the scan "
                      "computes")
    return down, edges, fill


def _leading(graph: Graph, cat: Val, down: dict, scan: Val) -> tuple[int, str]:
    *head, last = cat.operands
    if last not in down or any(p in down for p in head):
        raise Refused(f"{_where(cat)}: only cat((constant, scanned), dim) is placed")
    values, positions = set(), 0
    for part in head:
        val = graph.vals[part]
        while _passes_through(graph, val):  # detach, clone
            val = graph.vals[val.operands[0]]
        if val.kind != "op" or val.operands:
            raise Refused(f"{_where(cat)}: a part before the scanned one that is not a "
                          "constant (zeros_like, ones_like, full_like)")
        values.add(val.expr)
        positions += graph.vals[part].shape[scan.dims[0]]
    if len(values) != 1 or positions > 1024:
        raise Refused(f"{_where(cat)}: the leading parts are not one constant of at most "
                      "1024 positions")
    return positions, values.pop()


def _passes_through(graph: Graph, val: Val) -> bool:
    same = len(val.operands) == 1 and isinstance(val.operands[0], str) and \
        val.shape == graph.vals[val.operands[0]].shape
    return same and (val.kind == "view" or (val.kind == "op" and val.expr == "{0}"))


def _upstream(graph: Graph, scan: Val, edges: dict) -> tuple[dict, dict]:
    """Each value before the scan (or combined with it after) with its Pos; what each wants
    of its operands is added to `edges`."""
    d = scan.dims[0]
    edges = dict(edges) | {(scan.id, scan.operands[0]): Pos()}
    ups: dict = {}
    for val in reversed(list(graph.vals.values())):
        wanted = {p for (_, o), p in edges.items() if o == val.id}
        if not wanted or val.kind == "leaf" or val.id == scan.id:
            continue
        if len(wanted) > 1:
            raise Refused(f"{_where(val)} is needed at two positions along the scanned dim "
                          "(it would be computed twice)")
        p = ups[val.id] = wanted.pop()
        src = next((o for o in val.operands if isinstance(o, str)), None)
        if val.kind == "op":
            for o in val.operands:
                if isinstance(o, str):
                    lanes = p is not None and _per_lane(graph, o, scan)
                    edges[(val.id, o)] = p if lanes else None
        elif p is not None and val.kind == "flip" and val.dims == (d,):
            edges[(val.id, src)] = p.flipped(_delta(graph, src, scan))
        elif p is not None and val.kind == "slice" and val.dims == (d,):
            edges[(val.id, src)] = p.shifted(val.span[0])
        elif val.kind == "view" and val.shape == graph.vals[src].shape:
            edges[(val.id, src)] = p
        else:
            raise Refused(f"{_where(val)}: a {val.kind} before the scan (pointwise ops, flips "
                          "and slices along the scanned dim are placed)")
    return ups, edges


def _loads(graph: Graph, scan: Val, edges: dict, leaves: dict, names: dict) -> list:
    loads = []
    for (_, vid), p in edges.items():
        if graph.vals[vid].kind != "leaf" or (vid, p) in names:
            continue
        base, host = leaves[vid]  # renamed there if the kernel uses the name itself
        name = base if not any(ld.name == base for ld in loads) else f"{base}_{len(loads)}"
        kind = _shape_kind(graph, vid, scan)
        delta = _delta(graph, vid, scan) if kind in ("full", "line") else 0
        loads.append(ScanLoad(name, host, p, delta, graph.vals[vid].dtype, kind))
        names[(vid, p)] = name
    if not any(ld.kind == "full" for ld in loads):
        raise Refused("no tensor at the scanned shape is loaded, so the kernel cannot read "
                      "the sizes from one")
    return loads


def _where(val: Val) -> str:
    return f"the value of node {val.node}" if val.node >= 0 else f"leaf {val.id}"
