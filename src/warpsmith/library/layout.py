"""Where each value of a kernel lives in its iteration space.

A kernel iterates over one shape F (its output's, or the reduced tensor's). Every value it
computes is indexed by some of F's dims: `dims_of` walks from the kernel's roots back to its
leaves and gives each value, for each of its own dims, the F dim that indexes it (None for a
dim of size 1). Broadcasting, unsqueeze, expand, permute and a reduction's keepdim all become
such maps, so a leaf is loaded with one stride per dim it has, and a value that would be needed
at two different indexings (which would mean computing it twice) is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .graph import Graph, Lit, Val
from .ops import HELPERS
from .render import attr

Map = tuple  # of int | None, one entry per dim of a value
# names the kernels themselves use; an input called so (`mask`) gets another in the kernel
RESERVED = {"offs", "mask", "n", "rest", "row", "outer", "cols", "col_mask", "r", "start",
            "n_red", "n_inner", "n_scan", "carry", "last", "f", "out"}


@dataclass(frozen=True)
class Load:
    name: str  # the kernel's name for it: "x", "bias", "t0"
    host: str  # the forward's expression for the tensor: "x", "self.bias", "t0"
    dims: Map  # for each dim of the tensor, the F dim that indexes it
    kind: str  # pointwise: "flat" or "strided"; row kernels: "full", "reduced", "group",
    #            "scalar"
    dtype: str


@dataclass(frozen=True)
class Line:
    name: str  # "v3"
    expr: str  # template over {0}, {1}, …
    operands: tuple  # names in scope ("x", "v2") and scalars (Lit, FwdArg; after unify, dicts)
    varies: bool  # indexed by a reduced dim (row kernels): computed inside the loops


@dataclass(frozen=True)
class Shift:
    """A map entry: the kernel's dim `dim`, shifted to part `part` of cat `cat` (its index
    less the part's start, in range only where the part lies). Only the pointwise family
    places cats (pointwise.py: `dims_of(..., cats=True)`)."""

    dim: int
    cat: str
    part: int


@dataclass(frozen=True)
class HostArg:
    """A kernel argument the forward passes as written, not a number: a tensor a line reads
    at an address it computes (graph_take.gather_at's `tl.load`), its strides and sizes.
    `kernel` is the parameter's name in the kernel, `host` the forward's expression."""

    kernel: str
    host: str


class Refused(Exception):
    """A value the kernel cannot index; the message says which and why."""


def dims_of(graph: Graph, roots: dict[str, Map], cut: set[str], cats: bool = False
            ) -> dict[str, Map]:
    """Each value's map, from the roots' maps; `cut` values count as leaves (an earlier
    kernel wrote them). A leaf may be wanted at several maps: the key is then (id, map).
    `cats`: a cat is placed, each part at its Shift of the cat dim's entry."""
    wanted: dict[str, set] = {vid: {m} for vid, m in roots.items()}
    found: dict = {}
    for val in reversed(list(graph.vals.values())):
        maps = wanted.get(val.id)
        if not maps:
            continue
        if val.kind == "leaf" or val.id in cut:
            for m in sorted(maps, key=str):  # a set's order follows the string hash: the
                # loads' names (and so the source's bytes) changed with PYTHONHASHSEED
                found[(val.id, m)] = m
            continue
        if len(maps) > 1:
            raise Refused(f"{_where(val)} is used at two different broadcasts "
                          f"({' and '.join(map(str, sorted(maps, key=str)))})")
        m = next(iter(maps))
        found[val.id] = m
        if val.kind == "cat" and not cats:
            raise Refused(_scan_only(val))
        for src, src_map in _operand_maps(graph, val, m):
            wanted.setdefault(src, set()).add(src_map)
    return found


def _operand_maps(graph: Graph, val: Val, m: Map):
    if val.kind == "op":
        for o in val.operands:
            if isinstance(o, str):
                shape = graph.vals[o].shape
                lead = len(val.shape) - len(shape)
                yield o, tuple(None if s == 1 else m[j + lead] for j, s in enumerate(shape))
    elif val.kind == "view":
        src = graph.vals[val.operands[0]]
        out = [None] * len(src.shape)
        for k, d in enumerate(val.view):
            if d is not None and src.shape[d] != 1:
                out[d] = m[k]
        yield src.id, tuple(out)
    elif val.kind == "reduce":
        for d, s in enumerate(val.shape):
            if s != 1 and m[d] != d:
                raise Refused(f"{_where(val)}: its result is broadcast along dim {m[d]} of "
                              f"the kernel, not along the dim {d} it was kept in")
        # the source's map is the reduced tensor's own: set by the row kernel itself
    elif val.kind == "cat":
        d = val.dims[0]
        if not isinstance(m[d], int):
            raise Refused(f"{_where(val)} is a cat along a dim the kernel does not index "
                          "by its own (a broadcast or a cat of a cat)")
        for k, part in enumerate(val.operands):
            shape = graph.vals[part].shape
            yield part, tuple(None if s == 1 else Shift(m[d], val.id, k) if j == d else m[j]
                              for j, s in enumerate(shape))
    else:
        raise Refused(_scan_only(val))


def _scan_only(val: Val) -> str:
    if val.kind == "empty":
        return f"{_where(val)} is an uninitialized tensor (torch.empty)"
    if val.kind == "regroup":
        return (f"{_where(val)} is a reshape in the middle of the graph, placed only where "
                "an earlier kernel stores its source")
    if val.kind == "gemm":
        return f"{_where(val)} is a matrix product, which only the GEMM family places"
    if val.kind == "conv":
        return f"{_where(val)} is a convolution, which only the conv family places"
    if val.kind == "pool":
        return (f"{_where(val)} is a pooling window, which only the window family places, over "
                "a stored tensor")
    if val.kind == "topk":
        return f"{_where(val)} is a top-k, which only the topk family places"
    if val.kind == "scatter":
        return f"{_where(val)} is an index_add, which only the scatter family places"
    if val.kind == "take":
        return f"{_where(val)} is an index by positions, which only the take family places"
    return f"{_where(val)} is a {val.kind} along dim {val.dims}, which only a scan kernel places"


def _where(val: Val) -> str:
    return f"the value of node {val.node}" if val.node >= 0 else f"leaf {val.id}"


def leaf_names(graph: Graph, arg_names: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """leaf id -> (kernel name, forward expression)."""
    names = {}
    for val in graph.vals.values():
        if val.kind != "leaf":
            continue
        kind, key = val.source[:2]
        if kind in ("reshape", "real"):  # the forward binds it (generator.py), once
            base = names[key][0]  # its source leaf comes first in dataflow order
            taken = {host for _, host in names.values()}
            host = next(h for h in (f"{base}_view{n or ''}" for n in range(len(names) + 1))
                        if h not in taken)  # a second part of one leaf (graph_parts.py)
            # the kernel's name is the source's only where no kernel of the graph loads the
            # source itself: rotate_half loads q and its halves in one kernel, where two
            # parameters named q made a duplicate argument
            own = base if host == f"{base}_view" and not _loaded(graph, key) else host
            names[val.id] = (own, host)
        elif kind in ("arange", "tri_indices"):  # the forward makes it (generator.py)
            names[val.id] = (f"pos{val.id}", f"pos{val.id}")
        elif kind == "temp":  # a tensor an earlier stage wrote (generator._plan_cut)
            names[val.id] = (key, key)
        elif kind == "input":
            name = arg_names[key]
            names[val.id] = (name + "_in" if name in RESERVED else name, name)
        else:
            names[val.id] = ("p_" + key.replace(".", "_"), attr(key))
    return names


def _loaded(graph: Graph, leaf: str) -> bool:
    """Whether a value other than a leaf bound from it reads the leaf."""
    return any(leaf in v.operands for v in graph.vals.values() if v.kind != "leaf")


def lines_for(graph: Graph, targets: list[str], maps: dict, names: dict, varies) -> list[Line]:
    """The op lines computing `targets`, in dataflow order. `names` holds what is in scope:
    value ids, and (leaf id, map) pairs for loads; it is extended with the new names."""
    need: set[str] = set()
    loaded = {k[0] for k in names if isinstance(k, tuple)}
    stack = [t for t in targets if t not in names]
    while stack:
        vid = stack.pop()
        if vid in need or vid in names or vid in loaded:
            continue
        need.add(vid)
        stack.extend(o for o in graph.vals[vid].operands if isinstance(o, str))
    lines = []
    for val in graph.vals.values():
        if val.id not in need:
            continue
        if val.kind in ("leaf", "reduce"):
            raise Refused(f"{_where(val)} is needed where the kernel does not have it")
        if val.kind not in ("op", "view", "cat"):
            raise Refused(_scan_only(val))
        operands = tuple(_name(graph, val, o, maps, names) if isinstance(o, str) else o
                         for o in val.operands)
        if val.kind == "view":  # the same registers, indexed differently
            names[val.id] = operands[0]
            continue
        name = f"v{val.node}" if val.id == f"v{val.node}" else val.id.replace("_", "")
        expr = cat_expr(val, maps[val.id]) if val.kind == "cat" else val.expr
        lines.append(Line(name, expr, operands, varies(val.id)))
        names[val.id] = name
    return lines


def cat_expr(val: Val, m: Map) -> str:
    """Part k where the cat's index is at least part k's start (kernel argument
    `{cat}_o{k}`), as nested selects over the parts computed at their shifted indices."""
    index = f"i{m[val.dims[0]]}"
    expr = f"{{{len(val.operands) - 1}}}"
    for k in range(len(val.operands) - 2, -1, -1):
        expr = f"tl.where({index} < {cat_name(val.id)}_o{k + 1}, {{{k}}}, {expr})"
    return expr


def cat_name(vid: str) -> str:
    return vid.replace("_", "")


def _name(graph: Graph, val: Val, operand: str, maps: dict, names: dict) -> str:
    if operand in names:
        return names[operand]
    if val.id not in maps:
        raise Refused(f"{_where(graph.vals[operand])} would have to be loaded where "
                      f"{_where(val)} is computed, and that kernel loads nothing")
    for src, src_map in _operand_maps(graph, val, maps[val.id]):
        if src == operand and (src, src_map) in names:
            return names[(src, src_map)]
    raise Refused(f"{_where(graph.vals[operand])} is not loaded where {_where(val)} needs it")


def scalar_code(spec) -> str:
    """A scalar operand after unify: a constant inline, or the kernel argument carrying it."""
    if isinstance(spec, HostArg):
        return spec.kernel
    if isinstance(spec, dict) and "value" in spec:
        return _number(float(spec["value"]))
    if isinstance(spec, dict):
        return f"init{spec['init']}"
    if isinstance(spec, Lit):
        return _number(float(spec.value))
    return f"arg{spec.index}"


def _number(value: float) -> str:
    """A constant as kernel code: repr writes inf and nan as names no kernel defines
    (masked_fill(mask, float("-inf")))."""
    return repr(value) if math.isfinite(value) else f'float("{value!r}")'



def format_line(line: Line) -> str:
    values = [o if isinstance(o, str) else scalar_code(o) for o in line.operands]
    return f"{line.name} = {line.expr.format(*values)}"


def runtime_scalars(lines) -> list:
    """The scalars the kernel takes as arguments (init- or forward-bound), in first-use order."""
    found = []
    for line in lines:
        for o in line.operands:
            if not isinstance(o, str) and not (isinstance(o, dict) and "value" in o) \
                    and not isinstance(o, Lit) and o not in found:
                found.append(o)
    return found


def helpers(body: str) -> str:
    return "".join(code for name, code in HELPERS.items() if name + "(" in body)
