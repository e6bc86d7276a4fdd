"""A traced forward as a graph the generator can place into kernels: leaves (inputs and
state_dict entries), pointwise ops (as Triton expressions, ops.py), views (which dims of their
source each of their dims shows) and reductions (an accumulation and a final expression).

Composite ATen ops (norms, variance, layer norm, softmax, the losses) are written out here as
pointwise ops and reductions, so a kernel family never needs to know them. Building stops at
the first node with no such form, and the `Decline` names it.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass

from .graph_state import Refusal, live_nodes
from .match import Lit
from .ops import Unsupported, pointwise
from .trace import Node, Ref, Trace

REDUCE_OPS = {"sum", "mean", "amax", "amin", "max", "min", "linalg_vector_norm", "norm",
              "var", "std", "argmax", "argmin"}
VIEW_OPS = {"view", "_unsafe_view", "reshape", "unsqueeze", "squeeze", "expand", "permute",
            "transpose", "t"}
LOSS_REDUCTION = {0: None, 1: "mean", 2: "sum"}
# a product reads a reshape held at its source's shape (graph_move.py) as the "regroup" it
# is: its prologue writes the source to a temporary, the reshape a view of it (gemm.py)
PRODUCTS = {"mm", "bmm", "addmm", "linear"}
# leaves the forward binds from another leaf (source[1]): a reshape, a slice or a select
DERIVED_LEAVES = ("reshape", "real")  # "real": a complex leaf's view_as_real


@dataclass(frozen=True)
class FwdArg:
    """A forward argument that is a Python number (`forward(self, A, s)`)."""

    index: int


@dataclass
class Val:
    id: str
    shape: tuple[int, ...]
    dtype: str
    kind: str  # "leaf", "op", "view", "reduce"; placed by the scan family only (graph_scan.py):
    #            "scan", "flip", "slice", "cat", "select"; by the GEMM family only: "gemm";
    #            by the conv family only: "conv" (graph_conv.py); by the window family
    #            only: "pool" (graph_window.py); by the topk family only: "topk"
    #            (graph_topk.py); by the scatter family only: "scatter" (graph_scatter.py);
    #            by the take family only: "take" (graph_take.py)
    node: int  # the trace node it comes from, -1 for leaves
    source: tuple = ()  # leaf: ("input", i) or ("param", name)
    expr: str = ""  # op: template over {0}, {1}, …
    operands: tuple = ()  # op: value ids and scalars (Lit, FwdArg); view and reduce: (src,)
    view: tuple = ()  # view: for each of its dims, the source dim it shows, None if new
    combine: str = ""  # reduce: "sum", "max", "min", "argmax", "argmin"; scan: "sum", "prod";
    #                    gemm: the fp32 dot precision, "ieee" or "tf32"
    dims: tuple[int, ...] = ()  # reduce: the reduced dims of the source, ascending; scan,
    #                            flip, slice, cat, select: the dim they act along
    finalize: str = "{acc}"  # reduce: over {acc} and {count} (elements reduced)
    span: tuple = ()  # slice: (start, elements dropped at the end); select: (index,);
    #                  regroup: its sizes over the source's (graph_view.regroup); conv:
    #                  (its Geometry,); pool: (its Window,)


@dataclass
class Graph:
    vals: dict[str, Val]  # in dataflow order
    output: str
    ops: tuple[str, ...]  # the trace's ops, for messages
    reshape: tuple = ()  # the forward returns the output reshaped: (sizes over "{h}", shape)
    unkept: tuple[str, ...] = ()  # state forward updates in place, never read (graph_state)

    def users(self, vid: str) -> list[Val]:
        return [v for v in self.vals.values() if vid in v.operands]


@dataclass(frozen=True)
class Decline:
    """The first node the generator cannot place, and why."""

    node: int
    op: str
    why: str
    # a node whose value, written to a tensor first, lets the graph be placed (a reshape of
    # it that the kernels cannot follow: generator._plan_cut); -1 where none would
    cut: int = -1

    @property
    def reason(self) -> str:
        where = f"node {self.node} (aten.{self.op})" if self.node >= 0 else "the forward"
        return f"{where}: {self.why}"


def build_graph(trace: Trace, scalars: dict[tuple[int, float], FwdArg] | None = None,
                output: Ref | None = None, cuts: dict[int, str] | None = None
                ) -> Graph | Decline:
    """`scalars` marks the numbers that are forward arguments, by (node, value); `output`
    picks one of several outputs (graph_parts.py), whose graph keeps only what it reads;
    `cuts` names the nodes whose values earlier kernels wrote (generator._plan_cut): each a
    leaf, the tensor of that name."""
    builder = _Builder(trace, scalars or {})
    cuts = cuts or {}
    out = trace.output if output is None else output
    if not (isinstance(out, Ref) and out.kind == "node"):
        return Decline(-1, "", "forward does not return exactly one tensor made by an op")
    live = live_nodes(trace)
    if isinstance(live, Refusal):
        return Decline(live.node, live.op, live.why)
    for index, node in enumerate(trace.nodes):
        if index > out.key[0]:
            break  # nothing after the output is read by it (a cut's stage stops there)
        if index not in live.nodes:
            continue  # its outputs are never read (max_pool1d squeezes its unused indices)
        if index in cuts:
            meta = node.outs[0]
            builder.put(Val(f"v{index}", meta.shape, meta.dtype, "leaf", -1,
                            source=("temp", cuts[index])))
            continue
        try:
            builder.add(index, node)
        except Unsupported as e:
            return Decline(index, node.op, str(e), getattr(e, "cut", -1))
    vid = f"v{out.key[0]}" if out.key[1] == 0 else f"v{out.key[0]}_{out.key[1]}"
    if vid in builder.extra and not builder.indices(*out.key):
        node, op = builder.extra[vid]
        return Decline(node, op, "returns an output the generator does not make (indices, "
                       "saved statistics)")
    if vid in builder.lifted:  # the kernels write group norm's view; the forward reshapes
        builder.reshaped = (builder.lifted[vid], builder.vals[vid].span)
    if vid in builder.held:  # a reshape moved down to the output (graph_move.py)
        builder.reshaped = (builder.held[vid], builder.vals[vid].span)
    # with several outputs, or where a moved reshape left its old values behind, the graph
    # keeps only what the output reads
    prune = output is not None or builder.moved or bool(cuts)
    if builder.reshaped is not None:  # the kernels write the tensor before the reshape
        src, sizes = builder.reshaped
        shape = trace.nodes[out.key[0]].outs[0].shape
        vals = _reaching(builder.vals, src) if prune else builder.vals
        return Graph(vals, src, tuple(n.op for n in trace.nodes), (sizes, shape), live.unkept)
    vals = _reaching(builder.vals, vid) if prune else builder.vals
    return Graph(vals, vid, tuple(n.op for n in trace.nodes), unkept=live.unkept)


def _reaching(vals: dict[str, Val], root: str) -> dict[str, Val]:
    """The values `root` reads (through operands and derived leaves' sources), in dataflow
    order: with several outputs the others' values are no part of this output's graph."""
    need, stack = set(), [root]
    while stack:
        vid = stack.pop()
        if vid in need or vid not in vals:
            continue
        need.add(vid)
        val = vals[vid]
        stack.extend(o for o in val.operands if isinstance(o, str))
        if val.kind == "leaf" and val.source[0] in DERIVED_LEAVES:
            stack.append(val.source[1])
    return {k: v for k, v in vals.items() if k in need}


class _Builder:
    def __init__(self, trace: Trace, scalars: dict):
        self.trace, self.scalars = trace, scalars
        self.vals: dict[str, Val] = {}
        self.extra: dict[str, tuple[int, str]] = {}  # ids of outputs the graph cannot make
        self.reshaped = None  # (value id, sizes) when the output is a reshape of that value
        self.lifted: dict[str, str] = {}  # group norm's view (graph_group.py): id -> lifted id
        self.held: dict[str, str] = {}  # a reshape kept at its source's shape (graph_move.py)
        self.moved = False  # a reshape was moved (graph_move.py): its old values are dead
        self.pairs: dict[str, tuple[str, str]] = {}  # a complex value's parts (graph_complex)

    def add(self, index: int, node: Node) -> None:
        target = node.args[0][1] if node.args else None
        if node.in_place and not (isinstance(target, Ref) and target.kind == "node"):
            raise Unsupported("changes an input or a parameter in place")
        if _complex().is_complex(self, node):
            return _complex().add(self, index, node)
        made = pointwise(node)
        if made is not None:
            return self._op(index, node, *made)
        if self.held and node.name not in PRODUCTS and \
                any(self.id_of(r) in self.held for r in _refs(node.args)):
            from .graph_move import held_node  # a reduction of a reshape kept at its source's

            with self._cut_at_held([self.id_of(r) for r in _refs(node.args)]):
                return held_node(self, index, node)
        if node.name in VIEW_OPS:
            return self._view(index, node)
        if node.name in REDUCE_OPS:
            return self._reduce(index, node, node.name)
        writer = _COMPOSITES.get(node.name) or _more_writers().get(node.name)
        if writer is None:
            raise Unsupported("neither a pointwise op, a view nor a reduction the generator "
                              "knows")
        writer(self, index, node)

    @contextmanager
    def _cut_at_held(self, vids):
        """A reshape held at its source's shape (graph_move.py) that this node cannot read
        there: the decline names the held value's node as a cut (a ShuffleNet's channel
        shuffle of a batch norm's output: written first, reshaped by the forward, the
        transpose and the view back are then views of a tensor)."""
        try:
            yield
        except Unsupported as e:
            found = [int(v[1:]) for v in vids if v in self.held and re.fullmatch(r"v\d+", v)]
            if found and not hasattr(e, "cut"):
                e.cut = found[0]
            raise

    # -- values ---------------------------------------------------------------------------

    def id_of(self, ref) -> str | None:
        if not isinstance(ref, Ref):
            return None
        if ref.kind == "node":
            node, k = ref.key
            vid = f"v{node}" if k == 0 else f"v{node}_{k}"
            return vid if vid in self.vals else None
        if ref.kind == "input":
            return self._leaf(f"in{ref.key}", ("input", ref.key), self.trace.inputs[ref.key])
        if ref.kind == "param":
            return self._leaf(f"p:{ref.key}", ("param", ref.key), self.trace.params[ref.key])
        return None

    def _leaf(self, vid: str, source: tuple, meta) -> str:
        if vid not in self.vals:
            self.vals[vid] = Val(vid, meta.shape, meta.dtype, "leaf", -1, source=source)
        return vid

    def operand(self, index: int, name: str, value):
        if isinstance(value, Ref):
            if value.kind == "node" and f"v{value.key[0]}_{value.key[1]}" in self.extra \
                    and not self.indices(*value.key):
                raise Unsupported(f"uses output {value.key[1]} of node {value.key[0]}, which "
                                  "the generator does not make (indices, saved statistics)")
            vid = self.id_of(value)
            if vid is None:
                raise Unsupported(f"argument {name!r} is a tensor made outside any traced op")
            return vid
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Unsupported(f"argument {name!r} is {value!r}, not a tensor or a number")
        return self.scalars.get((index, float(value)), Lit(float(value)))

    def indices(self, node_index: int, k: int) -> bool:
        """max.dim/min.dim's indices, made when first used (an unused argmax would cost the
        kernel a comparison per element): an argmax/argmin over the same dims."""
        node = self.trace.nodes[node_index]
        if k != 1 or node.name not in ("max", "min") or node.arg("dim") is None:
            return False
        src = self.operand(node_index, "self", node.arg("self"))
        dims = _dims(node.arg("dim"), len(self.vals[src].shape))
        self.reduction(node_index, src, dims, bool(node.arg("keepdim")), "arg" + node.name,
                       "{acc}", f"v{node_index}_1", node.outs[1].dtype)
        del self.extra[f"v{node_index}_1"]
        return True

    def put(self, val: Val) -> str:
        self.vals[val.id] = val
        return val.id

    def fresh(self, index: int, part: str) -> str:
        return f"v{index}{part}"

    # -- the three kinds ----------------------------------------------------------------------

    def _op(self, index: int, node: Node, expr: str, operands: list) -> None:
        ops = tuple(self.operand(index, f"operand {i}", o) for i, o in enumerate(operands))
        if expr == "{0}" and self.vals[ops[0]].kind == "leaf" \
                and self.vals[ops[0]].dtype == node.outs[0].dtype:
            # detach/clone/alias of a leaf is the leaf: a kernel may load it at several maps
            src = self.vals[ops[0]]
            sizes = tuple(f"{{h}}.shape[{j}]" for j in range(len(src.shape)))
            self.put(Val(f"v{index}", src.shape, src.dtype, "leaf", -1,
                         source=("reshape", src.id, sizes, "")))
            return
        if expr == "{0}" and self.vals[ops[0]].kind == "view" \
                and self.vals[ops[0]].dtype == node.outs[0].dtype:
            from .graph_view import broadcast_leaf  # a copy of a leaf's broadcast (repeat_kv)

            made = broadcast_leaf(f"v{index}", self.vals, ops[0])
            if made is not None:
                self.put(made)
                return
        if any(o in self.lifted for o in ops if isinstance(o, str)):
            return _group().lifted_op(self, index, node, expr, ops)
        if any(o in self.held for o in ops if isinstance(o, str)):
            from .graph_move import held_op

            with self._cut_at_held(ops):
                return held_op(self, index, node, expr, ops)
        meta = node.outs[0]
        self.put(Val(f"v{index}", meta.shape, meta.dtype, "op", index, expr=expr,
                     operands=ops))
        self._extras(index, node)

    def _view(self, index: int, node: Node) -> None:
        src = self.operand(index, "self", node.arg("self"))
        meta = node.outs[0]
        try:
            shown = _view_dims(node, self.vals[src].shape, meta.shape)
        except Unsupported:
            from .graph_view import reshape  # merges and splits, where they need no indexing

            return reshape(self, index, node, src)
        self.put(Val(f"v{index}", meta.shape, meta.dtype, "view", index, operands=(src,),
                     view=shown))

    def _reduce(self, index: int, node: Node, name: str, part: str = "") -> None:
        args = dict(node.args)
        src = self.operand(index, "self", args["self"])
        if src in self.lifted:
            return _group().lifted_reduce(self, index, node, name, src)
        shape = self.vals[src].shape
        dims = _dims(args.get("dim"), len(shape))
        self._extras(index, node)
        combine, finalize, prologue = _reduction(name, args)
        if name in ("var", "std"):
            return self._variance(index, node, src, dims, name)
        if prologue is not None:
            src = self.put(Val(self.fresh(index, "_in"), shape, self.vals[src].dtype, "op",
                               index, expr=prologue, operands=(src,)))
        self.reduction(index, src, dims, bool(args.get("keepdim", False)), combine, finalize,
                       f"v{index}{part}", node.outs[0].dtype)

    def reduction(self, index: int, src: str, dims: tuple[int, ...], keepdim: bool,
                  combine: str, finalize: str, vid: str, dtype: str) -> str:
        shape = self.vals[src].shape
        kept = tuple(1 if d in dims else s for d, s in enumerate(shape))
        if all(shape[d] == 1 for d in dims) and not combine.startswith("arg"):
            # over dims of size 1 (a mean after a keepdim sum) it is pointwise: no kernel cut
            acc = self.put(Val(vid + "_acc", kept, dtype, "op", index, operands=(src,),
                               expr=finalize.format(acc="{0}", count="1.0")))
        else:
            acc = self.put(Val(vid + "_acc", kept, dtype, "reduce", index, operands=(src,),
                               combine=combine, dims=dims, finalize=finalize))
        if keepdim:
            self.vals[vid] = self.vals.pop(acc)
            self.vals[vid].id = vid
            return vid
        shown = tuple(d for d in range(len(shape)) if d not in dims)
        return self.put(Val(vid, tuple(shape[d] for d in shown), dtype, "view", index,
                            operands=(acc,), view=shown))

    def _variance(self, index, node, src, dims, name) -> None:
        """mean, then the mean square of the deviations: two passes, exact like torch's."""
        correction = node.arg("correction")
        correction = 1.0 if correction is None else float(correction)
        shape, dtype = self.vals[src].shape, node.outs[0].dtype
        mean = self.reduction(index, src, dims, True, "sum", "{acc} / {count}",
                              self.fresh(index, "_mean"), dtype)
        dev = self.put(Val(self.fresh(index, "_dev"), shape, dtype, "op", index,
                           expr="({0} - {1}) * ({0} - {1})", operands=(src, mean)))
        final = f"{{acc}} / ({{count}} - {correction!r})"
        if name == "std":
            final = f"tl.sqrt({final})"
        self.reduction(index, dev, dims, bool(node.arg("keepdim")), "sum", final, f"v{index}",
                       dtype)

    def _extras(self, index: int, node: Node) -> None:
        for k in range(1, len(node.outs)):
            self.extra[f"v{index}_{k}"] = (index, node.op)


def _refs(args) -> list[Ref]:
    """The tensors among a node's arguments, lists (cat's) included."""
    found = []
    for _, value in args:
        values = value if isinstance(value, tuple | list) else (value,)
        found += [v for v in values if isinstance(v, Ref)]
    return found


def _reduction(name: str, args: dict) -> tuple[str, str, str | None]:
    """(combine, finalize, prologue applied to each element first)."""
    if name == "sum":
        return "sum", "{acc}", None
    if name == "mean":
        return "sum", "{acc} / {count}", None
    if name in ("argmax", "argmin"):
        return name, "{acc}", None
    if name in ("amax", "max", "amin", "min"):
        return ("max" if "max" in name else "min"), "{acc}", None
    if name in ("var", "std"):
        return "sum", "", None
    p = args.get("ord", args.get("p", 2))
    p = 2.0 if p is None else float(p)
    if p == float("inf"):
        return "max", "{acc}", "tl.abs({0})"
    if p == float("-inf"):
        return "min", "{acc}", "tl.abs({0})"
    if p == 1:
        return "sum", "{acc}", "tl.abs({0})"
    if p == 2:
        return "sum", "tl.sqrt({acc})", "{0} * {0}"
    raise Unsupported(f"a norm of order {p!r} (orders 1, 2 and ±inf are written)")


def _dims(dim, ndim: int) -> tuple[int, ...]:
    """The reduced dims, ascending; None or () reduce every dim, as torch's sum does."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    return tuple(sorted({d % max(ndim, 1) for d in dims}))


def _view_dims(node: Node, src: tuple[int, ...], out: tuple[int, ...]) -> tuple:
    """For each dim of the view, the source dim it shows (None: a new or broadcast dim)."""
    if node.name == "permute":
        return tuple(d % len(src) for d in node.arg("dims"))
    if node.name in ("transpose", "t"):
        order = list(range(len(src)))
        if len(src) >= 2:
            a, b = (node.arg("dim0"), node.arg("dim1")) if node.name == "transpose" else (0, 1)
            order[a % len(src)], order[b % len(src)] = order[b % len(src)], order[a % len(src)]
        return tuple(order)
    if node.name == "expand":
        lead = len(out) - len(src)
        return tuple(None if j < lead or src[j - lead] == 1 else j - lead
                     for j in range(len(out)))
    # view, reshape, (un)squeeze: fine when they only add or drop dims of size 1
    kept = [d for d, s in enumerate(src) if s != 1]
    if [src[d] for d in kept] != [s for s in out if s != 1]:
        raise Unsupported(f"reshapes {src} to {out}, merging or splitting dims (only views "
                          "that add or drop dims of size 1 are placed)")
    order = iter(kept)
    return tuple(None if s == 1 else next(order) for s in out)


def _loss(self: _Builder, index: int, node: Node, expr: str, extra: list) -> None:
    """mse/huber/smooth-l1: the elementwise loss, then mean, sum or nothing."""
    args = dict(node.args)
    pred = self.operand(index, "self", args["self"])
    target = self.operand(index, "target", args["target"])
    scalars = tuple(self.operand(index, n, args[n]) for n in extra)
    meta = self.vals[pred]
    kind = LOSS_REDUCTION.get(args["reduction"])
    vid = f"v{index}" if kind is None else self.fresh(index, "_loss")
    self.put(Val(vid, meta.shape, meta.dtype, "op", index, expr=expr,
                 operands=(pred, target, *scalars)))
    if kind is not None:
        finalize = "{acc} / {count}" if kind == "mean" else "{acc}"
        self.reduction(index, vid, tuple(range(len(meta.shape))), False, "sum", finalize,
                       f"v{index}", node.outs[0].dtype)


def _bce_with_logits(self: _Builder, index: int, node: Node) -> None:
    """(1 − y)·x + (1 + (p − 1)·y)·(log(1 + e^−|x|) + max(−x, 0)), times the weight: torch's
    stable form, with the optional weight and pos_weight as broadcast operands."""
    args = dict(node.args)
    x = self.operand(index, "self", args["self"])
    operands, expr = [x, self.operand(index, "target", args["target"])], \
        "(1.0 - {1}) * {0} + {lw} * (tl.log(1.0 + tl.exp(-tl.abs({0}))) + tl.maximum(-{0}, 0.0))"
    lw = "1.0"
    if args.get("pos_weight") is not None:
        operands.append(self.operand(index, "pos_weight", args["pos_weight"]))
        lw = f"(1.0 + ({{{len(operands) - 1}}} - 1.0) * {{1}})"
    expr = expr.replace("{lw}", lw)
    if args.get("weight") is not None:
        operands.append(self.operand(index, "weight", args["weight"]))
        expr = f"({expr}) * {{{len(operands) - 1}}}"
    meta, kind = self.vals[x], LOSS_REDUCTION.get(args["reduction"])
    vid = f"v{index}" if kind is None else self.fresh(index, "_loss")
    self.put(Val(vid, node.outs[0].shape if kind is None else meta.shape, meta.dtype, "op",
                 index, expr=expr, operands=tuple(operands)))
    if kind is not None:
        self.reduction(index, vid, tuple(range(len(meta.shape))), False, "sum",
                       "{acc} / {count}" if kind == "mean" else "{acc}", f"v{index}",
                       node.outs[0].dtype)


def _softmax(self: _Builder, index: int, node: Node) -> None:
    """exp(x − max) / Σ exp(x − max), or its log: three passes over the reduced dim."""
    if node.arg("half_to_float"):
        raise Unsupported("softmax with half_to_float")
    x = self.operand(index, "self", node.arg("self"))
    softmax(self, index, x, _dims(node.arg("dim"), len(self.vals[x].shape)),
            node.name == "_log_softmax", node.outs[0].dtype, f"v{index}")


def softmax(self: _Builder, index: int, x: str, dims: tuple, log: bool, dtype: str,
            vid: str) -> None:
    """_softmax's values over `dims` of x, the result named `vid`."""
    shape = self.vals[x].shape
    top = self.reduction(index, x, dims, True, "max", "{acc}", self.fresh(index, "_max"),
                         dtype)
    exp = self.put(Val(self.fresh(index, "_exp"), shape, dtype, "op", index,
                       expr="tl.exp({0} - {1})", operands=(x, top)))
    total = self.reduction(index, exp, dims, True, "sum", "{acc}", self.fresh(index, "_sum"),
                           dtype)
    expr = "{0} - {1} - tl.log({2})" if log else "tl.exp({0} - {1}) / {2}"
    self.put(Val(vid, shape, dtype, "op", index, expr=expr, operands=(x, top, total)))


def _more_writers() -> dict:
    # the writer modules build on this module's Val and _Builder, so they are imported late
    from . import (
        graph_conv,
        graph_gemm,
        graph_index,
        graph_parts,
        graph_pool,
        graph_scan,
        graph_scatter,
        graph_take,
        graph_topk,
        graph_window,
    )

    return writers_of(graph_scan, graph_gemm, _group(), graph_pool, graph_conv, graph_window,
                      graph_parts, graph_index, graph_topk, graph_scatter, graph_take)


def writers_of(*modules) -> dict:
    """The modules' WRITERS in one table; an op two of them write is an error unless the
    later one says it replaces the earlier (REPLACES: it hands on what it does not place). A
    union let the later replace the other in silence: `ones` of a bool mask written as 1.0."""
    table: dict = {}
    for module in modules:
        twice = set(table) & set(module.WRITERS) - getattr(module, "REPLACES", set())
        if twice:
            raise ValueError(f"{module.__name__} writes {sorted(twice)}, written already")
        table |= module.WRITERS
    return table


def _group():
    from . import graph_group

    return graph_group


def _complex():
    from . import graph_complex

    return graph_complex


_HUBER = "tl.where(tl.abs({0} - {1}) < {2}, 0.5 * ({0} - {1}) * ({0} - {1}){scale}, {3}" \
    "(tl.abs({0} - {1}) - 0.5 * {2}))"
_COMPOSITES = {
    "mse_loss": lambda b, i, n: _loss(b, i, n, "({0} - {1}) * ({0} - {1})", []),
    "smooth_l1_loss": lambda b, i, n: _loss(
        b, i, n, _HUBER.format("{0}", "{1}", "{2}", "", scale=" / {2}"), ["beta"]),
    "huber_loss": lambda b, i, n: _loss(
        b, i, n, _HUBER.format("{0}", "{1}", "{2}", "{2} * ", scale=""), ["delta"]),
    "_softmax": _softmax,
    "_log_softmax": _softmax,
    "binary_cross_entropy_with_logits": _bce_with_logits,
}
