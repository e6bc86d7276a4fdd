"""Parts of an input or a parameter, for graph.py: `chunk`, `split`, `unbind`, slices and
selects of a leaf (GEGLU's two halves, adaLN's shift/scale/gate, rotate_half's halves, a
class token). Each part is a new leaf the forward binds as a view of its source (`narrow`,
`select`: no copy), so a kernel loads it at its strides like any input.

Every start and length is written over the source's run-time shape where the trace shows
how it follows from it (equal chunks: `x.shape[d] // 2`; a label shift: `x.shape[d] - 1`),
so nothing shape-derived is baked into the candidate; a size that follows no such rule stays
a literal, and a structure differing between the task's shapes is declined (generator.py).
A part of a computed value after a product, a convolution or a pool (GEGLU's halves of a
projection, adaLN's six chunks of one, a causal convolution cut to its input's length) is a
"regroup": the family that stores its source hands the rest of the graph that part of the
stored tensor as a view (gemm._tail). Any other part of a computed value is declined, except
slices and selects, which the scan family places (graph_scan.py).
"""

from __future__ import annotations

from . import graph_scan
from .choices import choice
from .graph import DERIVED_LEAVES, Val, _Builder
from .match import init_formulas
from .ops import Unsupported
from .trace import Meta, Node

DENOMINATORS = range(2, 9)  # x.shape[d] * p // q for the fractions a model's split writes
SHIFTS = range(1, 9)  # x.shape[d] - c for a shift by a few positions


def extent(value: int, length: int, d: int, inits: tuple = (), first: tuple = ()) -> str:
    """`value` (0 ≤ value ≤ length) over "{h}.shape[d]", the source dim's run-time size;
    where the constructor's arguments give it too (a fused QKV's `num_heads * head_dim`),
    a choice (choices.py) of the size's text and theirs, the plans across shapes keeping
    the one every shape allows. `first`: texts preferred to those (_over_inputs)."""
    n = f"{{h}}.shape[{d}]"
    if value in (0, length):
        return n if value else "0"
    return choice([*first, _over_size(value, length, n), *_over_inits(value, inits)])


def _over_inputs(b: _Builder, src: str, value: int) -> tuple[str, ...]:
    """A parameter's part as long as an input's dim (a rotary table cut to the sequence,
    `freqs_cis[:seqlen]` with `seqlen = x.shape[1]`): that dim's run-time size, as the
    forward names it, before any fraction of the table's own length (which is the
    constructor's maximum, not the sequence's). Nothing for a part of an input."""
    while b.vals[src].source[0] in DERIVED_LEAVES:
        src = b.vals[src].source[1]
    if b.vals[src].source[0] != "param":
        return ()
    return tuple(f"{name}.shape[{j}]"
                 for name, meta in zip(b.trace.arg_names, b.trace.inputs, strict=False)
                 if meta is not None for j, size in enumerate(meta.shape) if size == value)


def _over_size(value: int, length: int, n: str) -> str:
    for q in DENOMINATORS:
        if value * q % length == 0:
            p = value * q // length
            return f"{n} // {q}" if p == 1 else f"{n} * {p} // {q}"
    if length - value in SHIFTS:
        return f"{n} - {length - value}"
    return str(value)


def _over_inits(value: int, inits: tuple) -> list[str]:
    """The constructor's int arguments equal to `value`, then their sums and products
    (match.init_formulas), as the candidate keeps them (`self.size{k}`)."""
    def name(i: int) -> str:
        return f"self.size{i}"

    single = [name(i) for i, a in enumerate(inits) if type(a) is int and a == value]
    return single + [text for text, _ in init_formulas([value], [tuple(inits)], name)]


def _sizes(shape: tuple[int, ...], dim: int, length: str) -> tuple[str, ...]:
    return tuple(length if j == dim else f"{{h}}.shape[{j}]" for j in range(len(shape)))


def _narrowed(b: _Builder, index: int, k: int, src: str, dim: int, start: int, size: int,
              vid: str | None = None, dtype: str | None = None) -> None:
    """`src` narrowed along `dim`; a part of an elementwise op of values at its shape is that
    op of their parts (a causal LM's logits.float()[:, :-1] after its LM head: the product's
    part is a view of what it stores, where the float logits' part would be stored by none)."""
    val, meta = b.vals[src], b.trace.nodes[index].outs[k]
    vid = vid or (f"v{index}" if k == 0 else f"v{index}_{k}")
    shape = val.shape
    if _elementwise(b, val):
        parts = []
        for o in val.operands:
            if isinstance(o, str):
                _narrowed(b, index, k, o, dim, start, size, f"{o}_n{index}", b.vals[o].dtype)
                o = f"{o}_n{index}"
            parts.append(o)
        b.put(Val(vid, meta.shape, val.dtype, "op", val.node, expr=val.expr,
                  operands=tuple(parts)))
        return
    if dtype is not None:  # an operand's part: its own dtype, not the node's output's
        meta = Meta(meta.shape, dtype)
    inits = b.trace.init_inputs
    first = _over_inputs(b, src, start + size) if val.kind == "leaf" else ()
    length = extent(size, shape[dim], dim, inits, first) if start == 0 else \
        _difference(extent(start + size, shape[dim], dim, inits, first),
                    extent(start, shape[dim], dim, inits))
    prefix = f".narrow({dim}, {extent(start, shape[dim], dim, inits)}, {length})"
    _part(b, vid, src, meta, _sizes(shape, dim, length), prefix)


def _elementwise(b: _Builder, val: Val) -> bool:
    """An op whose tensor operands all have its shape, and which no product, convolution or
    pool can store in its epilogue (its shape is none of theirs)."""
    stored = {v.shape for v in b.vals.values() if v.kind in ("gemm", "conv", "pool")}
    return val.kind == "op" and val.shape not in stored and all(
        b.vals[o].shape == val.shape for o in val.operands if isinstance(o, str)) and \
        any(isinstance(o, str) for o in val.operands)


def _part(b: _Builder, vid: str, src: str, meta, sizes: tuple[str, ...], prefix: str) -> None:
    """A part of a leaf is a leaf the forward binds; of a stored value's chain, a regroup."""
    if b.vals[src].kind == "leaf":
        b.put(Val(vid, meta.shape, meta.dtype, "leaf", -1,
                  source=("reshape", src, sizes, prefix)))
    else:
        b.put(Val(vid, meta.shape, meta.dtype, "regroup", int(vid[1:].split("_")[0]),
                  operands=(src,), span=sizes, expr=prefix))


def _difference(end: str, start: str) -> str:
    return f"{end} - ({start})" if end != "0" else "0"


def _leaf(b: _Builder, index: int, node: Node) -> tuple[str, int] | None:
    """The source and the dim when the source is a leaf or a value a stored kernel's chain
    computes (a part of it is then a view of what that kernel stores); else None."""
    src = b.operand(index, "self", node.arg("self"))
    if b.vals[src].kind != "leaf" and not _after_stored(b):
        return None
    return src, node.arg("dim") % max(len(b.vals[src].shape), 1)


def _after_stored(b: _Builder) -> bool:
    """A product, convolution, pool or top-k before this node and no scan (whose family
    places its own slices and selects): a part of a computed value may be a view of a stored
    one. One that is not reaches a family as a regroup, which every other family declines."""
    kinds = {v.kind for v in b.vals.values()}
    return bool(kinds & {"gemm", "conv", "pool", "topk"}) and "scan" not in kinds


def _split(b: _Builder, index: int, node: Node) -> None:
    found = _leaf(b, index, node)
    if found is None:
        raise Unsupported("splits a computed value (chunks and splits of an input, a "
                          "parameter or a product's or convolution's output are placed, as "
                          "views the forward binds)")
    src, dim = found
    start = 0
    for k, meta in enumerate(node.outs):
        _narrowed(b, index, k, src, dim, start, meta.shape[dim])
        start += meta.shape[dim]


def _slice(b: _Builder, index: int, node: Node) -> None:
    found = _leaf(b, index, node)
    if found is None or node.arg("step") != 1:
        return graph_scan.WRITERS["slice"](b, index, node)
    src, dim = found
    n = b.vals[src].shape[dim]
    start, end = (graph_scan._clamp(node.arg(k), default, n)
                  for k, default in (("start", 0), ("end", n)))
    _narrowed(b, index, 0, src, dim, start, max(end - start, 0))


def _select(b: _Builder, index: int, node: Node) -> None:
    found = _leaf(b, index, node)
    if found is None:
        return graph_scan.WRITERS["select"](b, index, node)
    src, dim = found
    _selected(b, index, 0, src, dim, node.arg("index"))


def _selected(b: _Builder, index: int, k: int, src: str, dim: int, at: int) -> None:
    shape, meta = b.vals[src].shape, b.trace.nodes[index].outs[k]
    at = at % shape[dim]
    where = str(at) if at < shape[dim] // 2 else f"{{h}}.shape[{dim}] - {shape[dim] - at}"
    sizes = tuple(f"{{h}}.shape[{j}]" for j in range(len(shape)) if j != dim)
    _part(b, f"v{index}" if k == 0 else f"v{index}_{k}", src, meta, sizes,
          f".select({dim}, {where})")


def _index(b: _Builder, index: int, node: Node) -> None:
    """`v[:, [-1]]`, `x[[0, 1]]`: positions written as a Python list (trace._Indexing), one
    run of adjacent ascending positions along one dim, is a narrow of that dim."""
    indices = node.arg("indices")
    at = [d for d, t in enumerate(indices) if t is not None]
    ref = indices[at[0]] if len(at) == 1 else None
    if all(getattr(indices[d], "kind", "") in ("node", "input", "param") for d in at):
        from .graph_take import take  # tensors of positions: a gather

        return take(b, index, node)
    if ref is None or getattr(ref, "kind", "") != "const":
        raise Unsupported("indexes by a tensor of positions (only a Python list of "
                          "positions along one dim is placed, as a narrow, and tensors "
                          "an op made, as a gather)")
    src = b.operand(index, "self", node.arg("self"))
    if b.vals[src].kind != "leaf" and not _after_stored(b):
        raise Unsupported("indexes a computed value by a list of positions (an input's, a "
                          "parameter's or a stored kernel's output's is placed)")
    dim, n = at[0], b.vals[src].shape[at[0]]
    positions = [p % n if -n <= p < n else None for p in ref.key]
    if None in positions or positions != list(range(positions[0], positions[0] +
                                                    len(positions))):
        raise Unsupported(f"indexes by the positions {list(ref.key)}, not one run of adjacent "
                          "ascending positions")
    _narrowed(b, index, 0, src, dim, positions[0], len(positions))


def _unbind(b: _Builder, index: int, node: Node) -> None:
    found = _leaf(b, index, node)
    if found is None:
        raise Unsupported("unbinds a computed value (an input's, a parameter's or a "
                          "product's or convolution's output's is placed)")
    src, dim = found
    for k in range(len(node.outs)):
        _selected(b, index, k, src, dim, k)


def _arange(b: _Builder, index: int, node: Node) -> None:
    """torch.arange in forward (positions for ALiBi, a sliding window, a sinusoid): a leaf
    the forward makes with torch.arange, its bounds over an input's run-time shape where one
    of its dims has that size (the first such dim), else literals."""
    args = dict(node.args)
    start, end, step = args.get("start", 0), args["end"], args.get("step", 1)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end, step)):
        raise Unsupported("arange with bounds that are not integers")
    meta = node.outs[0]
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "leaf", -1,
              source=("arange", _bound(b, start), _bound(b, end), str(step), meta.dtype)))


def _bound(b: _Builder, value: int) -> str:
    """An arange bound over "{x}", the forward's name of the input showing it, by position;
    else a constructor argument equal to it (a timestep embedding's `num_freqs`), which the
    candidate keeps as `self.size{k}` (generator.render_plan); else the literal."""
    if value in (0, 1):
        return str(value)
    for i, meta in enumerate(b.trace.inputs):
        for j, size in enumerate(meta.shape if meta is not None else ()):
            if size == value:
                return f"{{{i}}}.shape[{j}]"
            if size == 2 * value:
                return f"{{{i}}}.shape[{j}] // 2"
    for k, arg in enumerate(b.trace.init_inputs):
        if type(arg) is int and arg == value:
            return f"self.size{k}"
    return str(value)


REPLACES = {"slice", "select"}  # what it does not place goes to graph_scan's writers
WRITERS = {"arange": _arange, "split": _split, "split_with_sizes": _split, "slice": _slice,
           "select": _select, "unbind": _unbind, "index": _index}
