"""Complex values as pairs of reals, for graph.py: interleaved RoPE's `view_as_complex(x
.reshape(..., -1, 2)) * freqs_cis`, then `view_as_real(...).flatten(3)`.

A complex value is never a tensor of the graph: the builder keeps, for each, the ids of two
real values of its shape, its real and its imaginary part (`_Builder.pairs`). So

- `view_as_complex(v)` (v real, last dim 2) is the two selects of v's last dim, pushed
  through its pointwise ops and views to the leaves (a leaf's select is a leaf the forward
  binds as a view: no copy);
- a complex input or parameter is read as `torch.view_as_real(p)` (a real view, no copy: the
  candidate keeps the task's complex dtype), whose last dim is selected the same way;
- views, slices and selects apply to both parts; `mul`, `div`, `add`, `sub`, `neg`, `conj`
  are their real arithmetic on the parts (a real operand only multiplies or adds);
  `polar` and `complex` make a pair from real values;
- `view_as_real(c)` is the stack of the parts along a new last dim: a cat of the two parts
  unsqueezed, placed by the pointwise family (each part at its index along that dim), so
  the `flatten` after it interleaves them.

Anything else reading a complex value is declined, naming it.
"""

from __future__ import annotations

from . import graph_parts
from .graph import VIEW_OPS, Val, _Builder, _view_dims
from .ops import Unsupported
from .trace import Meta, Node, Ref

PART = ("re", "im")  # the suffixes of a complex value's two real values
REAL = {"complex32": "float16", "complex64": "float32", "complex128": "float64"}


def is_complex(b: _Builder, node: Node) -> bool:
    """Whether the node makes or reads a complex value."""
    if node.name in ("view_as_complex", "view_as_real", "polar", "complex"):
        return True
    if any(m.dtype in REAL for m in node.outs):
        return True
    return any(_complex_ref(b, r) for _, v in node.args
               for r in (v if isinstance(v, tuple | list) else (v,)))


def _complex_ref(b: _Builder, ref) -> bool:
    meta = b.trace.meta(ref) if isinstance(ref, Ref) else None
    return meta is not None and meta.dtype in REAL


def add(b: _Builder, index: int, node: Node) -> None:
    writer = _WRITERS.get(node.name)
    if writer is None and node.name in VIEW_OPS:
        writer = _view
    if writer is None:
        raise Unsupported(f"{node.name} of a complex value (views, slices, view_as_real, "
                          "mul, div, add, sub, neg, conj, polar and complex are written, as "
                          "real arithmetic on the (real, imaginary) parts)")
    writer(b, index, node)


# -- the parts ------------------------------------------------------------------------------

def parts(b: _Builder, index: int, name: str, ref) -> tuple[str, str]:
    """The (real, imaginary) ids of a complex operand; a complex leaf is read through its
    real view, once."""
    vid = _made(ref)
    if vid in b.pairs:
        return b.pairs[vid]
    vid = b.operand(index, name, ref)
    if vid in b.pairs:
        return b.pairs[vid]
    val = b.vals[vid]
    if val.kind != "leaf" or val.dtype not in REAL:
        raise Unsupported(f"argument {name!r} is a complex value the generator did not make")
    real = b.put(Val(f"{vid}_real", (*val.shape, 2), REAL[val.dtype], "leaf", -1,
                     source=("real", vid)))
    last = len(val.shape)
    b.pairs[vid] = tuple(_pick(b, real, last, k, f"{vid}_{PART[k]}") for k in (0, 1))
    return b.pairs[vid]


def _made(ref) -> str | None:
    """The id of a complex value an earlier node made (it has parts, no value of its own)."""
    if not (isinstance(ref, Ref) and ref.kind == "node"):
        return None
    node, k = ref.key
    return f"v{node}" if k == 0 else f"v{node}_{k}"


def _pick(b: _Builder, src: str, dim: int, at: int, vid: str) -> str:
    """`src.select(dim, at)` as a real value: of a leaf a leaf the forward binds as a view; of
    a pointwise op the op of its operands' selects; of a view the view of its source's."""
    val = b.vals[src]
    shape = val.shape[:dim] + val.shape[dim + 1:]
    if vid in b.vals:
        return vid
    if val.kind == "leaf":
        sizes = tuple(f"{{h}}.shape[{j}]" for j in range(len(val.shape)) if j != dim)
        graph_parts._part(b, vid, src, Meta(shape, val.dtype), sizes,
                          f".select({dim}, {at})")
        return vid
    if val.kind == "op" and all(not isinstance(o, str) or b.vals[o].shape == val.shape
                                for o in val.operands):
        ops = tuple(_pick(b, o, dim, at, f"{o}_s{dim}_{at}") if isinstance(o, str) else o
                    for o in val.operands)
        return b.put(Val(vid, shape, val.dtype, "op", val.node, expr=val.expr, operands=ops))
    if val.kind == "view":
        source = val.view[dim]
        rest = val.view[:dim] + val.view[dim + 1:]
        if source is None:  # a dim the view adds: every entry of it is the source
            return b.put(Val(vid, shape, val.dtype, "view", val.node, operands=val.operands,
                             view=rest))
        inner = _pick(b, val.operands[0], source, at, f"{val.operands[0]}_s{source}_{at}")
        shown = tuple(d if d is None or d < source else d - 1 for d in rest)
        return b.put(Val(vid, shape, val.dtype, "view", val.node, operands=(inner,),
                         view=shown))
    raise Unsupported("views a computed value as complex (an input's, a parameter's and "
                      "pointwise ops of them are placed, as selects of their pairs)")


def _put_pair(b: _Builder, index: int, node: Node, exprs: tuple[str, str],
              operands: tuple, shape: tuple | None = None) -> None:
    meta = node.outs[0]
    vid = f"v{index}"
    made = tuple(b.put(Val(f"{vid}_{PART[k]}", shape or meta.shape, REAL[meta.dtype], "op",
                           index, expr=exprs[k], operands=operands)) for k in (0, 1))
    b.pairs[vid] = made


# -- the writers ----------------------------------------------------------------------------

def _as_complex(b: _Builder, index: int, node: Node) -> None:
    src = b.operand(index, "self", node.arg("self"))
    last = len(b.vals[src].shape) - 1
    re, im = (_pick(b, src, last, k, f"v{index}_{PART[k]}") for k in (0, 1))
    _stand_in(b, index, node, (re, im))


def _stand_in(b: _Builder, index: int, node: Node, pair: tuple[str, str]) -> None:
    b.pairs[f"v{index}"] = pair  # no value of its own: only its parts are read


def _as_real(b: _Builder, index: int, node: Node) -> None:
    """The parts stacked along a new last dim: a cat of the two unsqueezed."""
    re, im = parts(b, index, "self", node.arg("self"))
    meta = node.outs[0]
    rank = len(meta.shape) - 1
    ups = tuple(b.put(Val(f"v{index}_u{k}", (*meta.shape[:-1], 1), meta.dtype, "view", index,
                          operands=(p,), view=(*range(rank), None)))
                for k, p in enumerate((re, im)))
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "cat", index, operands=ups, dims=(rank,)))


def _view(b: _Builder, index: int, node: Node) -> None:
    pair = parts(b, index, "self", node.arg("self"))
    meta = node.outs[0]
    shown = _view_dims(node, b.vals[pair[0]].shape, meta.shape)  # merges are declined
    made = tuple(b.put(Val(f"v{index}_{PART[k]}", meta.shape, REAL[meta.dtype], "view",
                           index, operands=(p,), view=shown)) for k, p in enumerate(pair))
    _stand_in(b, index, node, made)


def _slice(b: _Builder, index: int, node: Node) -> None:
    pair = parts(b, index, "self", node.arg("self"))
    if node.arg("step") != 1:
        raise Unsupported("a slice of a complex value with a step")
    meta, dim = node.outs[0], node.arg("dim") % len(node.outs[0].shape)
    n = b.vals[pair[0]].shape[dim]
    start, end = (_clamp(node.arg(k), default, n) for k, default in (("start", 0), ("end", n)))
    made = []
    for k, p in enumerate(pair):
        if not _partable(b, p):
            raise Unsupported("a slice of a computed complex value")
        vid = f"v{index}_{PART[k]}"
        graph_parts._narrowed(b, index, 0, p, dim, start, max(end - start, 0), vid,
                              REAL[meta.dtype])
        made.append(vid)
    _stand_in(b, index, node, tuple(made))


def _select(b: _Builder, index: int, node: Node) -> None:
    pair = parts(b, index, "self", node.arg("self"))
    dim = node.arg("dim") % len(b.vals[pair[0]].shape)
    at = node.arg("index") % b.vals[pair[0]].shape[dim]
    _stand_in(b, index, node, tuple(_pick(b, p, dim, at, f"v{index}_{PART[k]}")
                                    for k, p in enumerate(pair)))


def _partable(b: _Builder, vid: str) -> bool:
    val = b.vals[vid]
    return val.kind == "leaf" or graph_parts._elementwise(b, val)


def _clamp(value, default: int, n: int) -> int:
    from .graph_scan import _clamp as clamp

    return clamp(value, default, n)


def _same(b: _Builder, index: int, node: Node) -> None:
    """clone, alias, a copy to the same complex dtype: the parts themselves."""
    if node.name == "_to_copy" and node.arg("dtype") not in (None, f"torch.{node.outs[0].dtype}"):
        raise Unsupported("casts a complex value to another dtype")
    _stand_in(b, index, node, parts(b, index, "self", node.arg("self")))


def _operands(b: _Builder, index: int, node: Node) -> tuple:
    """self's and other's parts; a real operand (a tensor or a number) is (value, None)."""
    found = []
    for name in ("self", "other"):
        ref = node.arg(name)
        if _complex_ref(b, ref):
            found.append(parts(b, index, name, ref))
        else:
            found.append((b.operand(index, name, ref), None))
    return tuple(found)


def _mul(b: _Builder, index: int, node: Node) -> None:
    (ar, ai), (br, bi) = _operands(b, index, node)
    if ai is None:
        (ar, ai), (br, bi) = (br, bi), (ar, ai)
    if bi is None:  # complex times real: each part scaled
        return _put_pair(b, index, node, ("{0} * {2}", "{1} * {2}"), (ar, ai, br))
    _put_pair(b, index, node, ("{0} * {2} - {1} * {3}", "{0} * {3} + {1} * {2}"),
              (ar, ai, br, bi))


def _div(b: _Builder, index: int, node: Node) -> None:
    (ar, ai), (br, bi) = _operands(b, index, node)
    if ai is None:
        raise Unsupported("a real value divided by a complex one")
    if bi is None:
        return _put_pair(b, index, node, ("{0} / {2}", "{1} / {2}"), (ar, ai, br))
    den = "({2} * {2} + {3} * {3})"
    _put_pair(b, index, node, (f"({{0}} * {{2}} + {{1}} * {{3}}) / {den}",
                               f"({{1}} * {{2}} - {{0}} * {{3}}) / {den}"), (ar, ai, br, bi))


def _add_sub(b: _Builder, index: int, node: Node) -> None:
    if node.arg("alpha") not in (None, 1):
        raise Unsupported("add or sub of complex values with an alpha")
    (ar, ai), (br, bi) = _operands(b, index, node)
    sign = "-" if node.name == "sub" else "+"
    if ai is None:  # real ± complex
        im = "-{3}" if sign == "-" else "{3}"
        return _put_pair(b, index, node, (f"{{0}} {sign} {{2}}", im), (ar, ar, br, bi))
    if bi is None:
        return _put_pair(b, index, node, (f"{{0}} {sign} {{2}}", "{1}"), (ar, ai, br))
    _put_pair(b, index, node, (f"{{0}} {sign} {{2}}", f"{{1}} {sign} {{3}}"),
              (ar, ai, br, bi))


def _neg(b: _Builder, index: int, node: Node) -> None:
    re, im = parts(b, index, "self", node.arg("self"))
    _put_pair(b, index, node, ("-{0}", "-{1}"), (re, im))


def _conj(b: _Builder, index: int, node: Node) -> None:
    re, im = parts(b, index, "self", node.arg("self"))
    _put_pair(b, index, node, ("{0}", "-{1}"), (re, im))


def _polar(b: _Builder, index: int, node: Node) -> None:
    r, theta = (b.operand(index, n, node.arg(n)) for n in ("abs", "angle"))
    _put_pair(b, index, node, ("{0} * tl.cos({1})", "{0} * tl.sin({1})"), (r, theta))


def _complex(b: _Builder, index: int, node: Node) -> None:
    re, im = (b.operand(index, n, node.arg(n)) for n in ("real", "imag"))
    _put_pair(b, index, node, ("{0}", "{1}"), (re, im))


_WRITERS = {"view_as_complex": _as_complex, "view_as_real": _as_real, "slice": _slice,
            "select": _select, "clone": _same, "alias": _same, "_to_copy": _same,
            "mul": _mul, "div": _div, "add": _add_sub, "sub": _add_sub, "neg": _neg,
            "conj": _conj, "_conj": _conj, "polar": _polar, "complex": _complex}
