"""Reshapes that merge or split dims, for graph.py. A kernel indexes its values dim by dim, so
a reshape in the middle of a graph stays declined; two places need no index arithmetic:

- a reshape of a leaf (an input or a parameter) is a new leaf: the forward passes
  `x.reshape(…)` (free when x is contiguous), its sizes written over x's own shape;
- a reshape that is the forward's output: the kernels write the tensor before it, and the
  forward returns `out.reshape(…)`.

That covers InstanceNorm written as a view, a batch norm and a view back.
"""

from __future__ import annotations

import math
import re

from .choices import choice
from .graph import Val
from .ops import Unsupported


def regroup(src: tuple[int, ...], out: tuple[int, ...], inputs=(), inits=()
            ) -> tuple[str, ...]:
    """For each dim of `out`, its size over the source's ("{h}.shape[j]"), where each out
    dim is one source dim, a product of adjacent ones (merged) or a factor of one (split).
    `inputs`: (forward name, shape) of the forward's inputs, which a split may follow;
    `inits`: the constructor's arguments, which a split's factors may follow."""
    sizes: list[str] = []
    i, j = 0, 0
    while j < len(out):
        while i < len(src) and src[i] == 1:
            i += 1
        if out[j] == 1:
            sizes.append("1")
            j += 1
        elif i < len(src) and src[i] == out[j]:
            sizes.append(f"{{h}}.shape[{i}]")
            i, j = i + 1, j + 1
        elif i < len(src) and src[i] < out[j]:
            k = i
            while k < len(src) and math.prod(src[i:k + 1]) < out[j]:
                k += 1
            if k == len(src) or math.prod(src[i:k + 1]) != out[j]:
                raise _mixed(src, out)
            sizes.append(" * ".join(f"{{h}}.shape[{d}]" for d in range(i, k + 1)))
            i, j = k + 1, j + 1
        elif i < len(src):
            j, i = _split(src, out, i, j, sizes, inputs, inits), i + 1
        else:
            raise _mixed(src, out)
    if any(s != 1 for s in src[i:]):
        raise _mixed(src, out)
    return tuple(sizes)


def _split(src, out, i: int, j: int, sizes: list[str], inputs=(), inits=()) -> int:
    """One source dim into out[j:k]: the factors after the first as constructor arguments
    where each is exactly one of them (gated RMSNorm's `group_size`: the candidate keeps it
    as `self.size{k}`), else an input's run of dims where one has these sizes (a split that
    undoes a merge of its dims), else the factors after the first are the trace's numbers (a
    constructor argument equal to one: attention's `view(B, S, -1, head_dim)` follows
    head_dim on the verifier's twin) and the first is what they leave of the source dim."""
    k = j
    while k < len(out) and math.prod(out[j:k + 1]) < src[i]:
        k += 1
    if k == len(out) or math.prod(out[j:k + 1]) != src[i]:
        raise _mixed(src, out)
    options = []  # each rule's sizes, in order of preference; every shape's plan keeps
    # those all allow (choices.py): a sequence length equal to a head_dim by chance (16 and
    # 16) reads as either at one shape, as only the right one at the others
    kept = _init_factors(out[j + 1:k + 1], inits)
    if kept is not None:
        options.append([" // ".join([f"{{h}}.shape[{i}]", *kept]), *kept])
    run = _input_run(out[j:k + 1], inputs)
    if run is not None:
        options.append(run)
    first = _init_factors(out[j:j + 1], inits) if k == j + 1 else None
    if first is not None:  # (groups, C // groups): a channel shuffle's `view(B, g, C // g, …)`
        # follows the groups it is given, where the trace's C // g (40) is no rule for
        # another channel count, and the library's twin need not grow the channels to say so
        options.append([first[0], f"{{h}}.shape[{i}] // {first[0]}"])
    factors = [_factor(s, inits) for s in out[j + 1:k + 1]]
    rest = factors[0] if len(factors) == 1 else f"({' * '.join(factors)})"
    options.append([f"{{h}}.shape[{i}] // {rest}", *factors])
    sizes.extend(choice(texts) for texts in zip(*options, strict=True))
    return k + 1


def _factor(size: int, inits) -> str:
    """`self.size{k}` (generator.render_plan keeps it) for a constructor argument equal to
    `size`, where the verifier's twin would grow it (8 or more); else the literal."""
    for k, arg in enumerate(inits):
        if type(arg) is int and arg == size >= 8:
            return f"self.size{k}"
    return str(size)


def _init_factors(factors: tuple[int, ...], inits) -> list[str] | None:
    """`self.size{k}` for each factor that is one constructor argument and no other (a
    factor of 1, or one two arguments share, says nothing). None where any factor is not."""
    kept = []
    for f in factors:
        ks = [k for k, a in enumerate(inits) if type(a) is int and a == f]
        if f == 1 or len(ks) != 1:
            return None
        kept.append(f"self.size{ks[0]}")
    return kept if kept else None


def _input_run(factors: tuple[int, ...], inputs) -> list[str] | None:
    """The factors as consecutive dims of a forward input, by name (`x.shape[1]`): an LM
    head's (B*S, V) viewed back as (B, S, V) follows the hidden states' B and S on every twin,
    where the literal S failed the verifier's (models/lm_head_softcap). None where no input
    has them."""
    for name, shape in inputs:
        for d in range(len(shape) - len(factors) + 1):
            if tuple(shape[d:d + len(factors)]) == tuple(factors):
                return [f"{name}.shape[{d + t}]" for t in range(len(factors))]
    # dims of an input in order with others between them (torch.matmul of a transposed
    # matrix and (B, K, N) frames folds (B, N) into its product's rows): where one input
    # has them at exactly one choice of dims
    for name, shape in inputs:
        picks = list(_in_order(tuple(shape), tuple(factors), 0))
        if len(picks) == 1:
            return [f"{name}.shape[{d}]" for d in picks[0]]
    return None


def _in_order(shape: tuple, factors: tuple, start: int):
    """Each ascending choice of dims of `shape` from `start` whose sizes are `factors`."""
    if not factors:
        yield ()
        return
    for d in range(start, len(shape)):
        if shape[d] == factors[0]:
            for rest in _in_order(shape, factors[1:], d + 1):
                yield (d, *rest)


def _mixed(src, out) -> Unsupported:
    return Unsupported(f"reshapes {src} to {out}, regrouping dims in a way that is neither a "
                       "merge nor a split of adjacent dims")


def reshape(builder, index: int, node, src: str) -> None:
    """A leaf's reshape becomes a leaf; the output's is kept for the forward; else declined."""
    val, meta, trace = builder.vals[src], node.outs[0], builder.trace
    inputs = [(name, m.shape) for name, m in zip(trace.arg_names, trace.inputs, strict=False)
              if m is not None]
    inits = trace.init_inputs
    permuted = _permuted_leaf(builder.vals, src)
    if permuted is not None and val.kind == "view":  # attention's key.transpose(2, 3) as
        # (B*H, D, S) for a bmm: a view of the leaf the forward binds
        builder.put(turned_leaf(f"v{index}", builder.vals[permuted[0]], permuted[1],
                                meta.shape, meta.dtype, inputs, inits))
        return
    sizes = regroup(val.shape, meta.shape, inputs, inits)
    if val.kind == "leaf":
        builder.put(Val(f"v{index}", meta.shape, meta.dtype, "leaf", -1,
                        source=("reshape", src, sizes)))
        return
    out = builder.trace.output
    if getattr(out, "kind", None) == "node" and out.key == (index, 0):
        builder.reshaped = (src, sizes)
        return
    from . import graph_move  # it builds on regroup, so it is imported late

    if graph_move.pushed(builder, index, src, meta.shape):
        return
    stored = any(v.kind in ("gemm", "conv", "pool", "topk") for v in builder.vals.values())
    if (not stored or not graph_move.storable(builder, src)) and \
            graph_move.hold(builder, index, src, meta.shape, meta.dtype, sizes):
        return
    if not stored:
        raise Unsupported(f"reshapes {val.shape} to {meta.shape} in the middle of the graph (a "
                          "reshape of an input or of the output is placed)")
    # after a GEMM, convolution, pool or top-k: placed where that kernel stores its source
    # (contiguous: the reshape is a view of it, gemm._tail); any other family declines it
    builder.put(Val(f"v{index}", meta.shape, meta.dtype, "regroup", index, operands=(src,),
                    span=sizes))


def turned_leaf(vid: str, leaf: Val, order: tuple[int, ...], shape: tuple, dtype: str,
                inputs=(), inits=()) -> Val:
    """A leaf the forward binds as `leaf` permuted by `order` (where that is no identity),
    then reshaped to `shape`: its sizes over the leaf's own dims."""
    turned = tuple(leaf.shape[d] for d in order)
    sizes = tuple(re.sub(r"\{h\}\.shape\[(\d+)\]",
                         lambda m: f"{{h}}.shape[{order[int(m.group(1))]}]", size)
                  for size in regroup(turned, shape, inputs, inits))
    turn = "" if list(order) == sorted(order) else f".permute({', '.join(map(str, order))})"
    return Val(vid, shape, dtype, "leaf", -1,
               source=("reshape", leaf.id, sizes, *((turn,) if turn else ())))


def _permuted_leaf(vals: dict, vid: str) -> tuple[str, tuple[int, ...]] | None:
    """(leaf, order) when `vid` is views of a leaf that only permute its dims and add or
    broadcast dims of size 1 (a transpose, a same-size expand): the leaf permuted by `order`
    holds vid's elements in vid's order. None for anything else (a broadcast to a larger
    size would need a copy)."""
    found = permuted(vals, vid)
    return found if found is not None and vals[found[0]].kind == "leaf" else None


def permuted(vals: dict, vid: str) -> tuple[str, tuple[int, ...]] | None:
    """(base, order) when `vid` is views of `base`, the first value that is no view, that
    only permute its dims and add or broadcast dims of size 1: base permuted by `order`
    holds vid's elements in vid's order. None for anything else."""
    val, shown = _shown(vals, vid)
    if shown is None:
        return None
    used = [d for d in shown if d is not None]
    if any(d is None and s != 1 for d, s in zip(shown, vals[vid].shape, strict=True)) or \
            len(set(used)) != len(used):
        return None
    rest = [d for d in range(len(val.shape)) if d not in used]
    if any(val.shape[d] != 1 for d in rest):
        return None
    return val.id, tuple(used + rest)


def _shown(vals: dict, vid: str) -> tuple[Val, tuple | None]:
    """(base, shown): the first value under `vid`'s chain of views, and for each of vid's
    dims the base dim it shows (None: a new or broadcast dim); shown is None where vid is
    no view."""
    val, shown = vals[vid], None
    while val.kind == "view":
        step = val.view
        shown = step if shown is None else tuple(None if d is None else step[d] for d in shown)
        val = vals[val.operands[0]]
    return val, shown


def broadcast_leaf(vid: str, vals: dict, src: str) -> Val | None:
    """A copy (clone) of views of a leaf that keep its dims in order and broadcast new ones
    (repeat_kv's k[:, :, None].expand(B, KV, n, S, D)): a leaf the forward binds as the
    leaf viewed with those dims, then expanded; the reshape after it copies. A broadcast
    size is written as the trace's number (a head count the verifier's twin keeps). None
    where the views permute the leaf or drop a dim of it."""
    leaf, shown = _shown(vals, src)
    shape = vals[src].shape
    used = [d for d in shown or () if d is not None]
    if shown is None or leaf.kind != "leaf" or used != sorted(set(used)) or \
            any(leaf.shape[d] != 1 for d in range(len(leaf.shape)) if d not in used):
        return None
    viewed = [f"{{h}}.shape[{d}]" if d is not None else "1" for d in shown]
    grown = ["-1" if d is not None or s == 1 else str(s) for d, s in zip(shown, shape,
                                                                        strict=True)]
    sizes = tuple(f"{{h}}.shape[{d}]" if d is not None else str(s)
                  for d, s in zip(shown, shape, strict=True))
    prefix = f".reshape({', '.join(viewed)}).expand({', '.join(grown)})"
    return Val(vid, shape, vals[src].dtype, "leaf", -1,
               source=("reshape", leaf.id, sizes, prefix))


def empty(builder, index: int, node) -> None:
    """torch.empty: placed by nothing; batch norm's trace makes one and never reads it."""
    meta = node.outs[0]
    builder.put(Val(f"v{index}", meta.shape, meta.dtype, "empty", index))
