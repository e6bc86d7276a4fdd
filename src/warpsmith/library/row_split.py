"""Two reduced shapes in one graph, one after the other (a loss: a norm per row, then the mean
over the rows; a batch norm, then a mean over each image). The graph is cut at the value the
later reductions reduce: a first row kernel writes it to `cut0` (a value per row, or a tensor
at its input's shape), and the rest of the graph, with `cut0` as an input, is planned again.
"""

from __future__ import annotations

from dataclasses import replace

from .graph import Graph, Val
from .layout import Refused

CUT = "cut0"  # the forward's and the kernels' name for the tensor between the two stages


def stages(graph: Graph, reductions: list[Val], leaves: dict, plan) -> tuple:
    """`plan` is row_reduce.plan, applied to each stage."""
    first = reductions[0]
    shape_of = {r.id: (graph.vals[r.operands[0]].shape, r.dims) for r in reductions}
    later = [r for r in reductions if shape_of[r.id] != shape_of[first.id]]
    cut = later[0].operands[0]
    before = _upstream(graph.vals, cut)
    head_reds = [r for r in reductions if r.id in before]
    if not head_reds or any(shape_of[r.id] != shape_of[first.id] for r in head_reds):
        raise Refused("the later reduction does not reduce what the first ones made")
    head = Graph({k: v for k, v in graph.vals.items() if k in before}, cut, graph.ops)
    made = plan(head, head_reds, leaves)
    if len(made) != 1 or made[0].store not in ("group", "full"):
        raise Refused("the first stage is not one row kernel writing a value per row or a "
                      "tensor at its input's shape")
    vals = dict(graph.vals)
    vals[cut] = Val(cut, vals[cut].shape, vals[cut].dtype, "leaf", -1, source=("temp", CUT))
    needed = _upstream(vals, graph.output)
    if any(vals[r.id].kind == "reduce" and r.id in needed for r in head_reds):
        raise Refused("the later stage needs a first-stage reduction besides the cut")
    tail = Graph({k: v for k, v in vals.items() if k in needed}, graph.output, graph.ops)
    rest = plan(tail, [v for v in tail.vals.values() if v.kind == "reduce"],
                leaves | {cut: (CUT, CUT)})
    return (replace(made[0], name="row_kernel_1", outs=(CUT,)), *rest)


def _upstream(vals: dict, vid: str) -> set[str]:
    seen, stack = set(), [vid]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if vals[v].kind != "leaf":
            stack.extend(o for o in vals[v].operands if isinstance(o, str))
    return seen
