"""Which trace nodes the output needs, and what the forward changes in place besides it.

A module may update its state in forward without the output reading the update: training
mode BatchNorm adds one to `num_batches_tracked` and moves `running_mean`/`running_var`
towards the batch statistics, while its output is normalised by the batch statistics alone.
Such updates are left out of the graph (the candidate computes the output; the rendered
file says which state it does not update), as long as nothing the output needs reads that
state: a value read after an update, or read again on the next call, would change with it.

Changing an input in place stays declined (the caller sees its tensor change), and so do
random ops: the output of dropout in training mode differs call by call, so no kernel can be
checked against the reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .trace import Node, Ref, Trace

RANDOM_OPS = {"bernoulli", "rand", "rand_like", "randn", "randn_like", "randint",
              "randint_like", "randperm", "normal", "uniform", "exponential", "multinomial",
              "native_dropout", "dropout", "poisson", "geometric", "cauchy", "log_normal"}


@dataclass(frozen=True)
class Live:
    nodes: set[int]  # the nodes the output needs (and in-place ops the generator must see)
    unkept: tuple[str, ...]  # state_dict entries forward updates that the output never reads


@dataclass(frozen=True)
class Refusal:
    node: int
    op: str
    why: str


def live_nodes(trace: Trace) -> Live | Refusal:
    writes = {i: _written(n) for i, n in enumerate(trace.nodes)}
    state = {r.key for refs in writes.values() for r in refs if r.kind == "param"}
    dropped = {i for i, n in enumerate(trace.nodes) if _inplace(n) and writes[i]
               and all(r.kind == "param" for r in writes[i])}
    roots = [trace.output] + [Ref("node", (i, 0)) for i, n in enumerate(trace.nodes)
                              if _inplace(n) and i not in dropped]
    live = _closure(trace, roots)
    for i in sorted(live):
        node = trace.nodes[i]
        if node.name in RANDOM_OPS:
            return Refusal(i, node.op, "draws random numbers (dropout in training mode): the "
                           "output differs call by call, so no kernel can be verified against "
                           "the reference")
        read = [v for k, v in node.args if isinstance(v, Ref) and v.kind == "param"
                and v.key in state and v not in writes[i]]
        if read:
            return Refusal(i, node.op, f"reads {read[0].key}, which forward updates in place "
                           "(the output would change with the update)")
    return Live(live, tuple(sorted(state)))


def _closure(trace: Trace, roots: list) -> set[int]:
    live: set[int] = set()
    stack = list(roots)
    while stack:
        ref = stack.pop()
        if isinstance(ref, tuple | list):
            stack.extend(ref)
        elif isinstance(ref, Ref) and ref.kind == "node" and ref.key[0] not in live:
            live.add(ref.key[0])
            stack.extend(v for _, v in trace.nodes[ref.key[0]].args)
    return live


def _inplace(node: Node) -> bool:
    return node.in_place


def _written(node: Node) -> list[Ref]:
    """The tensors the op writes, from its schema (`Tensor(a!)`): an in-place op's self,
    batch norm's running statistics when training (in eval mode it only reads them)."""
    name, overload = node.op.split(".", 1)
    try:
        schema = getattr(getattr(torch.ops.aten, name), overload)._schema
    except (AttributeError, RuntimeError):
        first = node.args[0][1] if node.args else None
        return [first] if _inplace(node) and isinstance(first, Ref) else []
    training = dict(node.args).get("training")
    if training is False:
        return []
    names = {a.name for a in schema.arguments
             if a.alias_info is not None and a.alias_info.is_write}
    if training:  # native_batch_norm's schema does not mark the statistics it moves
        names |= {"running_mean", "running_var"}
    return [v for k, v in node.args if k in names and isinstance(v, Ref)]
