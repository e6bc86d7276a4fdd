"""GEMM with a fused epilogue: a matrix product (graph_gemm.py's "gemm" value: mm, bmm,
addmm, linear) and the pointwise chain after it (bias, scaling, residual adds, activations,
clamps, operands broadcast against the output tile) as one tiled kernel, matmul.py's tile
walk with the chain applied to the fp32 accumulator before the one store.

Where the graph goes on with something a GEMM tile cannot finish (a reduction over the output
row: softmax, logsumexp, sums, norms; or another product), the kernel stores the last value
of the chain it can compute, a temporary `mm0`, and the rest of the graph, with `mm0` as an
input, is placed again by the graph families (another GEMM among them): one candidate file,
several kernels, launched in order.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, replace

from .graph import Decline, Graph, Val
from .layout import Line, Load, Refused, dims_of, lines_for


@dataclass(frozen=True)
class Operand:
    host: str  # the forward's expression for the tensor as the kernel reads it ("w.t()")


@dataclass(frozen=True, kw_only=True)
class Stored:
    """How a stored-value family's kernel ends (GEMM, convolution, pool): the pointwise chain
    on its tile and the tensor it stores; the fields each family's kernel shares."""
    loads: tuple[Load, ...]  # the epilogue's operands, each indexed by some output dims
    lines: tuple[Line, ...]  # the epilogue over `acc`
    result: str  # the name stored
    out: str  # the forward's name for the tensor written
    out_dtype: str
    views: tuple[str, ...] = ()  # forward lines after the launch: views of the stored tensor


@dataclass(frozen=True)
class GemmKernel(Stored):
    family = "gemm"  # the family that renders it (a class attribute, no field)
    name: str
    batched: bool  # bmm: a (B, M, N) output, the batch on the grid's second axis
    a: Operand  # (…, M, K)
    b: Operand  # (…, K, N)
    dtype: str  # the operands' dtype
    precision: str  # fp32 dot precision: "ieee" or "tf32"


class StoredFamily:
    """The skeleton of the families that store a value for the others to read (GEMM,
    convolution, pool): the first such value in dataflow order is its family's (LeNet's conv,
    pool, conv), its kernel computes the chain after it up to `_cut`, and the rest of the graph
    is placed again with the stored tensor as an input. A family says what differs: its value
    kind, its names, and `head` (the kernel's own fields, checked before the chain)."""
    kind: str  # the graph value placed: "gemm", "conv", "pool", "topk", "scatter", "take"
    temp: str  # the stored temporary's prefix when more kernels follow
    kernel_name: str
    kernel: type

    def match(self, graph: Graph, ctx) -> tuple | Decline | None:
        if first_stored(graph) != self.kind:
            return None
        stored = [v for v in graph.vals.values() if v.kind in STORED_KINDS]
        if len(stored) > MAX_DEPTH:  # each is placed one level deeper: say so at once
            return Decline(stored[MAX_DEPTH].node, graph.ops[stored[MAX_DEPTH].node],
                           f"{len(stored)} products, convolutions and pools in one graph: "
                           f"a generator limit (at most {MAX_DEPTH}, each placed on what the "
                           "one before leaves, one level deeper)")
        with deep_stack():
            return self.place_at(graph, ctx, 0)

    def place_at(self, graph: Graph, ctx, depth: int) -> tuple | Decline | None:
        if first_stored(graph) != self.kind:
            return None  # another family stores its value first; this one reads it later
        val = next(v for v in graph.vals.values() if v.kind == self.kind)
        try:
            return self.place(graph, val, ctx, depth)
        except Prologue as p:
            return _with_prologue(graph, val, p.vid, ctx, depth)
        except Refused as e:
            return Decline(val.node, graph.ops[val.node], str(e))

    def head(self, graph: Graph, val: Val, ctx) -> tuple:
        raise NotImplementedError

    def place(self, graph: Graph, val: Val, ctx, depth: int) -> tuple | Decline:
        """The kernel for `val`, then the kernels of whatever follows its stored value."""
        head = self.head(graph, val, ctx)
        cut = _cut(graph, val)
        last = cut == graph.output
        temp = "out" if last else f"{self.temp}{depth}"
        loads, lines, result = epilogue(graph, val, cut, ctx.leaves)
        name = f"{self.kernel_name}_{depth}" if depth else self.kernel_name
        kernel = self.kernel(name, *head, loads=loads, lines=lines, result=result, out=temp,
                             out_dtype=graph.vals[cut].dtype)
        if last:
            return (kernel,)
        rest, views = _tail(graph, cut, temp, ctx, depth)
        return rest if isinstance(rest, Decline) else (replace(kernel, views=views), *rest)


STORED_KINDS = ("conv", "gemm", "pool", "topk", "scatter", "take")


def first_stored(graph: Graph) -> str | None:
    """The kind of the first convolution, product, pool or top-k in dataflow order: the
    family that places it goes first."""
    return next((v.kind for v in graph.vals.values() if v.kind in STORED_KINDS), None)


def dot_dtype(val: Val, noun: str) -> str:
    """The dtype a tl.dot family computes `val` in: fp32, fp16 or bf16 (the worker widens
    the interpreter's bf16 products: lang/triton_compat.fix_interpreter_bf16)."""
    if val.dtype not in ("float32", "float16", "bfloat16"):
        raise Refused(f"a {val.dtype} {noun}: tl.dot takes fp32, fp16 or bf16 operands here")
    return val.dtype


class Gemm(StoredFamily):
    name = kind = "gemm"
    reads = "graph"
    temp, kernel_name, kernel = "mm", "gemm_kernel", GemmKernel
    knobs = {"GEMM_BLOCK_M": 128, "GEMM_BLOCK_N": 128, "GEMM_BLOCK_K": 32, "GEMM_GROUP_M": 8,
             "GEMM_WARPS": 8, "GEMM_STAGES": 3, "GEMM_TF32X3": 1}

    def head(self, graph: Graph, g: Val, ctx) -> tuple:
        dtype = dot_dtype(g, "product")
        a, b = (_operand(graph, vid, ctx.leaves, dtype) for vid in g.operands)
        if BATCH in a.host and BATCH in b.host:
            raise Refused("both of a batched product's operands are broadcast along its batch")
        # a matrix broadcast along the batch (mel_filters @ (B, F, T) frames) is expanded to
        # the other operand's batch at run time: a stride-0 view, no copy
        a, b = (Operand(x.host.replace(BATCH, f"{y.host}.shape[0]")) for x, y in ((a, b), (b, a)))
        return len(g.shape) == 3, a, b, dtype, g.combine

    def render(self, kernel: GemmKernel, tune: dict[str, int]):
        from .gemm_text import render

        return render(kernel)


BATCH = "{batch}"  # in an Operand's host: the other operand's batch size (Gemm.head)


def _operand(graph: Graph, vid: str, leaves: dict, dtype: str) -> Operand:
    """A leaf, or a permutation of one (x.t(), w.transpose(1, 2)): passed as that view, so
    the kernel reads the tensor in the layout it has, at its strides. A matrix broadcast to
    a batched product's batch (`torch.matmul` of a (M, K) filter bank and (B, K, N) frames
    expands it) is that matrix expanded along a new first dim, its size BATCH."""
    order, val = None, graph.vals[vid]
    if _squeezes(graph, vid):
        return _squeezed(graph, vid, leaves, dtype)
    while val.kind == "view":
        src = graph.vals[val.operands[0]]
        shown = [d for d in val.view if d is not None]
        batch = len(val.view) == 3 and len(src.shape) == 2 and val.view[0] is None
        if sorted(shown) != list(range(len(src.shape))) \
                or len(val.view) != len(src.shape) + batch:
            raise Refused(f"a product's operand is a view {val.view} of a {src.shape} "
                          "tensor that is neither a permutation of its dims, a matrix "
                          "broadcast along the batch, nor one dropping or adding size-1 dims")
        order = val.view if order is None else \
            tuple(None if d is None else val.view[d] for d in order)
        val = src
    if val.kind != "leaf":
        raise Prologue(val.id)
    if val.dtype != dtype:
        raise Refused(f"a product of a {val.dtype} operand into a {dtype} result")
    host = leaves[val.id][1]
    if order is not None and order[0] is None:  # (None, i, j): a matrix along the batch
        if len(order) != 3 or sorted(order[1:]) != [0, 1]:
            raise Refused(f"a product's operand broadcasts {val.shape} as {order}")
        matrix = host if order[1:] == (0, 1) else f"{host}.t()"
        return Operand(f"{matrix}.expand({BATCH}, -1, -1)")
    if order is None or list(order) == list(range(len(order))):
        return Operand(host)
    if len(order) == 2:
        return Operand(f"{host}.t()")
    return Operand(f"{host}.permute({', '.join(map(str, order))})")


def _views(graph: Graph, vid: str) -> list[tuple[Val, Val]]:
    """(view, its source) from the operand down to the first value that is no view."""
    chain, val = [], graph.vals[vid]
    while val.kind == "view":
        src = graph.vals[val.operands[0]]
        chain.append((val, src))
        val = src
    return chain


def _squeezes(graph: Graph, vid: str) -> bool:
    """Whether the operand's views drop or add size-1 dims (a flatten of a pooled (N, C, 1, 1)
    before nn.Linear), each otherwise a permutation: strides the kernel can read as they are."""
    chain = _views(graph, vid)
    return any(len(v.view) != len(s.shape) or None in v.view for v, s in chain) and all(
        len(set(shown := [d for d in v.view if d is not None])) == len(shown)
        and all(s.shape[d] == 1 for d in range(len(s.shape)) if d not in shown)
        and all(v.shape[i] == 1 for i, d in enumerate(v.view) if d is None)
        for v, s in chain)


def _squeezed(graph: Graph, vid: str, leaves: dict, dtype: str) -> Operand:
    """`_squeezes`'s operand: its source squeezed, permuted and unsqueezed view by view from
    the leaf outwards (`pro3.squeeze(3).squeeze(2)`), each a view at the source's strides.
    Only size-1 dims come and go, so the expression holds at any shape that keeps them 1."""
    chain = _views(graph, vid)
    leaf = chain[-1][1]
    if leaf.kind != "leaf":
        raise Prologue(leaf.id)
    if leaf.dtype != dtype:
        raise Refused(f"a product of a {leaf.dtype} operand into a {dtype} result")
    host = leaves[leaf.id][1]
    for v, src in reversed(chain):
        shown = [d for d in v.view if d is not None]
        host += "".join(f".squeeze({d})" for d in reversed(range(len(src.shape)))
                        if d not in shown)
        perm = [sorted(shown).index(d) for d in shown]
        if perm != sorted(perm):
            host += ".t()" if len(perm) == 2 else f".permute({', '.join(map(str, perm))})"
        host += "".join(f".unsqueeze({i})" for i, d in enumerate(v.view) if d is None)
    return Operand(host)


class Prologue(Exception):
    """A product's or a convolution's operand is computed before it: `vid`."""

    def __init__(self, vid: str):
        super().__init__(vid)
        self.vid = vid


def _with_prologue(graph: Graph, stored: Val, vid: str, ctx, depth: int) -> tuple | Decline:
    """The operand `vid` written first by a pointwise kernel into a temporary (SwiGLU's
    silu(gate) * up, GPT's GELU between two projections, a pre-activation before a
    convolution: not fused into the product's loads, one tensor written and read back), or
    by the graph families' kernels where reductions compute it (a softmax before attention's
    second product, squeeze-excitation's mean before its 1x1 convolution, a standardised
    weight); contiguous reshapes of it as views of that tensor; then the graph placed again
    with it as an input."""
    from .pointwise import plan

    noun = _NOUNS.get(stored.kind, "product")

    chain, src = [], vid
    while graph.vals[src].kind == "regroup":
        chain.append(src)
        src = graph.vals[src].operands[0]
    val = graph.vals[src]
    upstream = _upstream(graph, src, stop=set())
    temp = f"pro{depth}"
    if val.kind != "op" or any(graph.vals[u].kind not in ("op", "view", "cat")
                               for u in upstream):
        kernels = _placed_prologue(graph, src, temp, ctx, depth)
        cat = _pointwise_cat(graph, upstream) if isinstance(kernels, str) else None
        if cat is not None:
            # a row kernel reads no cat (DenseNet's BatchNorm over the features so far, a
            # mean over an inception block's branches): the cat written first, as a
            # pointwise prologue of its own, and the operand placed again reading it
            return _with_prologue(graph, stored, cat, ctx, depth)
        if isinstance(kernels, str):
            return Decline(stored.node, graph.ops[stored.node], "an operand is computed "
                           f"before the {noun} by more than pointwise ops, and {kernels}")
    else:
        try:
            kernels = (plan(graph, src, set(), ctx.leaves, f"pointwise_kernel_pro{depth}",
                            temp),)
        except Refused as e:
            return Decline(stored.node, graph.ops[stored.node], f"the {noun}'s prologue: {e}")
    vals = dict(graph.vals)
    vals[src] = Val(src, val.shape, val.dtype, "leaf", -1, source=("temp", temp))
    leaves = dict(ctx.leaves) | {src: (temp, temp)}
    for i, rid in enumerate(reversed(chain)):  # from the stored value outwards
        r = graph.vals[rid]
        view = _regroup_view(r, leaves[r.operands[0]][1])
        vals[rid] = Val(rid, r.shape, r.dtype, "leaf", -1, source=("temp", view))
        leaves[rid] = (f"{temp}_v{i}", view)
    rest = _place_tail(graph, vals, replace(ctx, leaves=leaves), depth)
    return rest if isinstance(rest, Decline) else (*kernels, *rest)


def _pointwise_cat(graph: Graph, upstream: set[str]) -> str | None:
    """The first cat among `upstream` that the pointwise family can write on its own (made
    by pointwise ops, views and cats of leaves), None if none."""
    for v in graph.vals.values():
        if v.id in upstream and v.kind == "cat" and all(
                graph.vals[u].kind in ("op", "view", "cat")
                for u in _upstream(graph, v.id, stop=set())):
            return v.id
    return None


_NOUNS = {"gemm": "product", "conv": "convolution", "pool": "pool"}


def _placed_prologue(graph: Graph, src: str, temp: str, ctx, depth: int) -> tuple | str:
    """The kernels computing `src` (a softmax before attention's second product, a norm
    before a product) by the graph families, placed on the graph up to it, the last one
    writing `temp`; their names suffixed so none clashes with the rest's. Why not, as a
    clause, where they cannot."""
    needed = _upstream(graph, src, stop=set())
    needed |= {o for v in needed for o in graph.vals[v].operands if isinstance(o, str)}
    sub = Graph({k: v for k, v in graph.vals.items() if k in needed}, src, graph.ops)
    placed = _place_tail(sub, sub.vals, ctx, depth)
    if isinstance(placed, Decline):
        return f"the graph families do not place what computes it ({placed.reason})"
    *head, last = placed
    if getattr(last, "out", None) == "out":
        last = replace(last, out=temp)
    elif getattr(last, "outs", None) == ("out",):
        last = replace(last, outs=(temp,))
    else:
        return "its last kernel writes no single tensor a product can read"
    return tuple(replace(k, name=f"{k.name}_pro{depth}") if hasattr(k, "name") else k
                 for k in (*head, last))


def _cut(graph: Graph, g: Val) -> str:
    """The last value the GEMM's epilogue can compute and store: at the product's shape, made
    from the product and leaves by pointwise ops and views only, and the only one of them
    the rest of the graph reads."""
    vals = list(graph.vals.values())
    after = vals[vals.index(g) + 1:]
    for cand in reversed([g] + [v for v in after if v.kind == "op" and v.shape == g.shape]):
        region = _upstream(graph, cand.id, stop={g.id})
        if g.id not in region or any(graph.vals[r].kind not in ("op", "view")
                                     for r in region - {g.id}):
            continue
        rest = _upstream(graph, graph.output, stop={cand.id})
        if not (rest & region) - {cand.id}:
            return cand.id
    raise Refused("no value after the product is both computable in its epilogue and all "
                  "the rest of the graph needs")


def _upstream(graph: Graph, vid: str, stop: set[str]) -> set[str]:
    """Non-leaf values `vid` is computed from, itself included; `stop` ones are not entered."""
    seen, stack = set(), [vid]
    while stack:
        v = stack.pop()
        if v in seen or graph.vals[v].kind == "leaf":
            continue
        seen.add(v)
        if v not in stop:
            stack.extend(o for o in graph.vals[v].operands if isinstance(o, str))
    return seen


def epilogue(graph: Graph, g: Val, cut: str, leaves: dict) -> tuple:
    """(loads, lines, result): the chain from the product `g` (the tile's `acc`) to `cut`,
    each operand loaded at the output dims it is indexed by (the conv family's too)."""
    identity = tuple(None if s == 1 else d for d, s in enumerate(g.shape))
    maps = dims_of(graph, {cut: identity}, {g.id})
    names, loads = {}, []
    for key, m in maps.items():
        if not isinstance(key, tuple):
            continue
        if key[0] == g.id:
            if m != identity:
                raise Refused("the product is used transposed or broadcast in its epilogue")
            names[key] = "acc"
            continue
        leaf = graph.vals[key[0]]
        base, host = leaves[key[0]]
        kname = f"ep_{base}" if not any(ld.host == host for ld in loads) \
            else f"ep_{base}_{len(loads)}"
        loads.append(Load(kname, host, m, "tile", leaf.dtype))
        names[key] = kname
    if (g.id, identity) not in names:
        names[(g.id, identity)] = "acc"
    lines = lines_for(graph, [cut], maps, names, lambda vid: True)
    result = names[cut] if cut != g.id else "acc"
    return tuple(loads), tuple(lines), result


def _tail(graph: Graph, cut: str, temp: str, ctx, depth: int) -> tuple:
    """The graph after the stored value, with it as an input, placed by the graph families;
    and the forward's lines viewing the stored tensor as the rest reads it (group norm's
    (N, G, C/G): graph_group.py; GEGLU's halves of a projection viewed back to 3-D:
    graph_parts.py), each view of the tensor or of an earlier view."""
    return tail_of(graph, {cut: temp}, ctx, depth)


def tail_of(graph: Graph, temps: dict[str, str], ctx, depth: int) -> tuple:
    """_tail for a kernel storing several values (top-k's values and positions): each id in
    `temps` an input named by its temporary."""
    vals, leaves = dict(graph.vals), dict(ctx.leaves)
    for cut, temp in temps.items():
        vals[cut] = Val(cut, vals[cut].shape, vals[cut].dtype, "leaf", -1,
                        source=("temp", temp))
        leaves[cut] = (temp, temp)
    views, stored = [], set(temps)
    base = next(iter(temps.values()))
    for v in list(vals.values()):  # in dataflow order: a view of a view follows its source
        if v.kind == "regroup" and v.operands[0] in stored:
            stored.add(v.id)
            name = f"{base}_v{len(views)}"
            # a part (narrow, select) is strided: read at its strides, not made contiguous
            vals[v.id] = Val(v.id, v.shape, v.dtype, "leaf", -1,
                             source=("temp", name, *(("part",) if v.expr else ())))
            views.append(f"{name} = {_regroup_view(v, leaves[v.operands[0]][1])}")
            leaves[v.id] = (name, name)
    return _place_tail(graph, vals, replace(ctx, leaves=leaves), depth), tuple(views)


def _regroup_view(v: Val, host: str) -> str:
    """The forward's expression of a regroup of `host`: its prefix (a pool's windows trim the
    stored tensor), then the view over its sizes."""
    return f"{host}{v.expr.format(h=host)}.view({', '.join(x.format(h=host) for x in v.span)})"


MAX_DEPTH = 400  # stored values placed one on the rest of another (see _place_tail)
FRAMES_PER_LEVEL = 12  # Python frames a level takes: about 5, more through prologues


@contextmanager
def deep_stack():
    """Python's recursion limit raised while a graph is placed, so MAX_DEPTH levels fit
    (3.11 calls Python functions without growing the C stack); restored after."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, MAX_DEPTH * FRAMES_PER_LEVEL + 1000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _place_tail(graph: Graph, vals: dict, sub, depth: int) -> tuple | Decline:
    """The graph with `vals` (stored values now leaves) placed by the graph families. Each
    stored value's family places the rest of the graph on what it leaves, one call deeper:
    an RNN unrolled over 256 steps (a product, its prologue and its output's product per
    step) nests that deep, so past MAX_DEPTH the graph is declined (Python's stack, and
    each level copies the graph) rather than crash the generator."""
    if depth >= MAX_DEPTH:
        return Decline(graph.vals[graph.output].node, graph.ops[-1],
                       f"the graph needs more than {MAX_DEPTH} stored values (products, "
                       "convolutions, pools, prologues) placed one after another: a "
                       "generator limit (each is placed on what the one before leaves, one "
                       "level deeper)")
    rest = Graph(vals, graph.output, graph.ops)
    needed = _upstream(rest, graph.output, stop=set()) | {
        o for v in _upstream(rest, graph.output, stop=set()) for o in vals[v].operands
        if isinstance(o, str)}
    tail = Graph({k: v for k, v in vals.items() if k in needed}, graph.output, graph.ops)
    for family in sub.families:
        # a product's family places it at the next depth, so its names do not clash
        placer = getattr(family, "place_at", None)
        found = placer(tail, sub, depth + 1) if placer else family.match(tail, sub)
        if found is not None:
            return found
    return Decline(graph.vals[graph.output].node, graph.ops[-1],
                   "no graph family takes what follows the product's stored output")
