"""The graph generator: a task's traced graph placed into kernels by the graph families
(registry.py), one structure for every declared shape, rendered as one candidate file.

    plan_task(task)           Plan(kernels, params) or a Decline-carrying NoPlan
    render_plan(plan, tune)   the candidate's source and the knob values rendered
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, fields, is_dataclass, replace

from ..types import Task
from .choices import agree, marked, settle
from .family import Context, Piece
from .graph import FwdArg, build_graph
from .layout import Line, helpers, leaf_names
from .match import Lit, _Differs, _resolve
from .registry import GRAPH, by_name, knobs
from .render import constructor, header, signature
from .shared import share
from .sizes import FORMS, ShapeArg, shape_numbers, twin_trace
from .trace import Ref, Trace, Untraceable, trace_shape, trace_task

PERTURB = 0.6180339887  # added to a forward number to find the ops it reaches


@dataclass(frozen=True)
class Plan:
    kernels: tuple  # kernel parameter dataclasses, in launch order
    params: tuple  # the state_dict entries the candidate declares, as render.constructor takes
    args: tuple[str, ...]  # the forward's parameter names
    numbers: tuple[int, ...]  # forward arguments that are Python numbers and reach a kernel
    reshape: str = ""  # the forward's line reshaping the kernels' output, if it returns one
    views: tuple[str, ...] = ()  # the forward's lines binding reshaped inputs and parameters
    unkept: tuple[str, ...] = ()  # state the reference updates in place and the output never
    #                               reads (graph_state.py): the candidate leaves it as it is
    parts: tuple = ()  # a forward returning several tensors: one Plan per output, in order
    #                    (kernels, params and numbers above are then their union)
    sizes: tuple = ()  # ShapeArgs the kernels take: numbers that are an input's size (sizes.py)
    # ((name, Plan), …): values written first, each by its own plan, the kernels above reading
    # them as the tensors of those names (a value a reshape the kernels cannot follow reads:
    # _plan_cut)
    stages: tuple = ()

    @property
    def all_kernels(self) -> tuple:
        return tuple(k for _, stage in self.stages for k in stage.all_kernels) + self.kernels

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(k.family for k in self.all_kernels))

    @property
    def label(self) -> str:
        return "+".join(self.families)


@dataclass(frozen=True)
class NoPlan:
    reason: str


def plan_task(task: Task) -> Plan | NoPlan:
    traces = trace_task(task)
    if isinstance(traces, Untraceable):
        return NoPlan(traces.reason)
    plans = []
    for trace in traces:
        found = _plan_trace(task, trace)
        if isinstance(found, NoPlan):
            return found if len(traces) == 1 else NoPlan(f"shape {trace.shape!r}: {found.reason}")
        plans.append(found)
    inits = [_At(t.init_inputs, _input_shapes(t)) for t in traces]
    twin = _twin_plan(task, traces[0])
    if twin is not None:
        try:
            return settle(_unify([*plans, twin[0]], [*inits, twin[1]], "plan"))
        except _Differs:
            pass  # the declared shapes alone decide, as before
    try:
        return settle(_unify(plans, inits, "plan"))
    except _Differs as e:
        return NoPlan(str(e))


class _At(tuple):
    """A shape's init arguments (what match._resolve reads), with its inputs' shapes: a
    ShapeArg at one shape and a number at another agree where the number is that size."""

    shapes: tuple

    def __new__(cls, init_inputs: tuple, shapes: tuple):
        made = super().__new__(cls, init_inputs)
        made.shapes = shapes
        return made


def _input_shapes(trace: Trace) -> tuple:
    return tuple(None if x is None else tuple(x.shape) for x in trace.inputs)


def _value_at(arg: ShapeArg, at: _At) -> float | None:
    shape = at.shapes[arg.input] if arg.input < len(at.shapes) else None
    if shape is None or arg.dim >= len(shape):
        return None
    return arg.scale * FORMS[arg.form][0](shape[arg.dim])


def _twin_plan(task: Task, trace: Trace) -> tuple[Plan, tuple] | None:
    """(the plan, the init arguments) at sizes.twin's shape, every data size grown by its
    own amount: a size two rules explain at the declared shapes (a fused QKV weight's 128
    rows, hidden_size * 2 or head_dim * 8) follows the one the verifier's twin agrees with.
    None where the task does not trace or plan there."""
    found = twin_trace(task, trace.shape)
    if found is None:
        return None
    twin_task, traced = found
    plan = _plan_trace(twin_task, traced)
    return None if isinstance(plan, NoPlan) else \
        (plan, _At(traced.init_inputs, _input_shapes(traced)))


def _plan_trace(task: Task, trace: Trace) -> Plan | NoPlan:
    scalars = shape_numbers(task, trace) | _forward_numbers(task, trace)
    if isinstance(trace.output, tuple):
        return _plan_outputs(task, trace, scalars)
    return _plan_graph(task, trace, None, scalars)


def _plan_outputs(task: Task, trace: Trace, scalars: dict) -> Plan | NoPlan:
    """Several outputs: each planned on its own graph (what it reads), rendered as its own
    method of the candidate; a value two outputs read is computed by each (pointwise work
    recomputed instead of a tensor written and read back)."""
    outs = trace.output
    if not outs or not all(isinstance(o, Ref) and o.kind == "node" for o in outs):
        return NoPlan("the forward returns a tuple holding something other than tensors made "
                      "by ops (an input returned as it is, a number, a nested tuple)")
    parts = []
    for k, ref in enumerate(outs):
        found = _plan_graph(task, trace, ref, scalars)
        if isinstance(found, NoPlan):
            return NoPlan(f"output {k}: {found.reason}")
        parts.append(found)
    params = {p["name"]: p for part in parts for p in part.params}
    return Plan(tuple(k for part in parts for k in part.all_kernels), tuple(params.values()),
                trace.arg_names, tuple(sorted({i for part in parts for i in part.numbers})),
                unkept=parts[0].unkept, parts=tuple(parts))


def _plan_graph(task: Task, trace: Trace, output: Ref | None, scalars: dict,
                cuts: dict[int, str] | None = None) -> Plan | NoPlan:
    graph = build_graph(trace, scalars, output, cuts)
    if not hasattr(graph, "vals") and graph.cut >= 0 and graph.cut not in (cuts or {}):
        return _plan_cut(task, trace, output, scalars, cuts or {}, graph)
    if not hasattr(graph, "vals"):
        return NoPlan(graph.reason)
    leaves = leaf_names(graph, trace.arg_names)
    params = _declared(trace, graph)
    if isinstance(params, NoPlan):
        return params
    ctx = Context(trace.arg_names, leaves, GRAPH)
    found, turn = _placed(graph, ctx), _reshape(graph, leaves)
    peeled = _peeled(graph) if isinstance(found, NoPlan) else None
    if peeled is not None:
        again = _placed(peeled[0], ctx)
        if not isinstance(again, NoPlan):  # else the first reason stands
            (graph, turn), found = peeled, again
    if isinstance(found, NoPlan):
        return found
    used = [o for k in found for ln in _lines(k) for o in ln.operands]
    numbers = sorted({o.index for o in used if isinstance(o, FwdArg)})
    sizes = tuple(dict.fromkeys(o for o in used if isinstance(o, ShapeArg)))
    return Plan(found, params, trace.arg_names, tuple(numbers), turn,
                _views(graph, leaves, trace.arg_names), graph.unkept, sizes=sizes)


MAX_CUTS = 64  # values written first by stages of their own, in one graph


def _plan_cut(task: Task, trace: Trace, output: Ref | None, scalars: dict,
              cuts: dict[int, str], decline) -> Plan | NoPlan:
    """The graph cut at node `decline.cut`: its value written first by a plan of its own
    (the stage), the rest planned with it as the tensor `st{node}` (a ShuffleNet's channel
    shuffle after a batch norm: the reshape, transpose and reshape back are then views of a
    tensor, which the forward binds and the next convolution reads)."""
    if len(cuts) >= MAX_CUTS:
        return NoPlan(f"{decline.reason} (and {MAX_CUTS} values are written first already: "
                      "a generator limit)")
    name = f"st{decline.cut}"
    stage = _plan_graph(task, trace, Ref("node", (decline.cut, 0)), scalars, cuts)
    if isinstance(stage, NoPlan) or stage.parts:
        return NoPlan(decline.reason)
    rest = _plan_graph(task, trace, output, scalars, cuts | {decline.cut: name})
    if isinstance(rest, NoPlan):
        return rest
    params = {p["name"]: p for p in (*stage.params, *rest.params)}
    return replace(rest, params=tuple(params.values()),
                   numbers=tuple(sorted({*stage.numbers, *rest.numbers})),
                   unkept=tuple(dict.fromkeys((*stage.unkept, *rest.unkept))),
                   stages=((name, stage), *rest.stages))


def _placed(graph, ctx: Context) -> tuple | NoPlan:
    for family in ctx.families:
        found = family.match(graph, ctx)
        if found is None:
            continue
        return found if isinstance(found, tuple) else NoPlan(found.reason)
    return NoPlan("no graph family takes this graph")


def _peeled(graph) -> tuple | None:
    """(the graph without its output, the forward's line permuting what the kernels write)
    where the output is a computed value's dims permuted (q.transpose(1, 2) after a per-head
    norm): a row kernel writes rows of the value itself, and the reference returns a
    permuted view of it too. None for any other output."""
    out = graph.vals[graph.output]
    if out.kind != "view" or graph.reshape:
        return None
    src = graph.vals[out.operands[0]]
    if src.kind == "leaf" or sorted(d for d in out.view if d is not None) != \
            list(range(len(src.shape))) or len(out.view) != len(src.shape):
        return None
    vals = {k: v for k, v in graph.vals.items() if k != out.id}
    return replace(graph, vals=vals, output=src.id), \
        f"out = out.permute({', '.join(map(str, out.view))})"


def _reshape(graph, leaves: dict) -> str:
    """The output's reshape: to an input's shape when one has it, else over out's sizes."""
    if not graph.reshape:
        return ""
    sizes, shape = graph.reshape
    like = next((host for vid, (_, host) in leaves.items() if graph.vals[vid].shape == shape
                 and graph.vals[vid].source[0] == "input"), None)
    if like is not None:
        return f"out = out.view({like}.shape)"
    return f"out = out.reshape({', '.join(s.format(h='out') for s in sizes)})"


def _arange(val, leaves: dict, arg_names: tuple[str, ...]) -> str:
    """graph_parts._arange's leaf: bounds over the inputs' run-time shapes."""
    _, start, end, step, dtype = val.source
    device = next(host for v, (_, host) in leaves.items() if v.startswith("in"))
    start, end = (s.format(*arg_names) for s in (start, end))
    return (f"{leaves[val.id][1]} = torch.arange({start}, {end}, {step}, "
            f"device={device}.device, dtype=torch.{dtype})")


def _tri_indices(val, leaves: dict, arg_names: tuple[str, ...]) -> str:
    """graph_take's leaf: tril_indices/triu_indices, sizes over the inputs' shapes, made by
    ops.HELPERS' kernel (the forward may not call torch's)."""
    _, name, row, col, offset = val.source
    device = next(host for v, (_, host) in leaves.items() if v.startswith("in"))
    row, col = (s.format(*arg_names) for s in (row, col))
    return (f"{leaves[val.id][1]} = tri_indices({row}, {col}, {offset}, "
            f"{int(name == 'tril_indices')}, {device}.device)")


def _views(graph, leaves: dict, arg_names: tuple[str, ...] = ()) -> tuple[str, ...]:
    lines = []
    for val in graph.vals.values():
        if val.kind == "leaf" and val.source[0] == "arange":
            lines.append(_arange(val, leaves, arg_names))
        if val.kind == "leaf" and val.source[0] == "tri_indices":
            lines.append(_tri_indices(val, leaves, arg_names))
        if val.kind == "leaf" and val.source[0] == "real":  # a complex leaf, as real pairs
            lines.append(f"{leaves[val.id][1]} = torch.view_as_real({leaves[val.source[1]][1]})")
        if val.kind == "leaf" and val.source[0] == "reshape":
            host = leaves[val.source[1]][1]
            sizes = ", ".join(s.format(h=host) for s in val.source[2])
            prefix = val.source[3].format(h=host) if len(val.source) > 3 else ""
            lines.append(f"{leaves[val.id][1]} = {host}{prefix}.reshape({sizes})")
    return tuple(lines)


def _forward_numbers(task: Task, trace: Trace) -> dict:
    """(node, value) -> FwdArg for each number that moves when a forward number does."""
    found = {}
    for index, value in enumerate(trace.numbers):
        if value is None:
            continue
        moved = trace_shape(task, trace.shape, {index: value + PERTURB})
        if isinstance(moved, Untraceable) or len(moved.nodes) != len(trace.nodes):
            continue
        for i, (a, b) in enumerate(zip(trace.nodes, moved.nodes, strict=True)):
            for (_, x), (_, y) in zip(a.args, b.args, strict=False):
                if isinstance(x, int | float) and not isinstance(x, bool) and x != y:
                    found[(i, float(x))] = FwdArg(index)
    return found


def _declared(trace: Trace, graph) -> tuple | NoPlan:
    params = []
    for val in graph.vals.values():
        if val.kind != "leaf" or val.source[0] != "param":
            continue
        name = val.source[1]
        if not all((p.isidentifier() and not keyword.iskeyword(p)) or p.isdigit()
                   for p in name.split(".")):
            return NoPlan(f"state_dict entry {name!r} is no attribute path a ModelNew could "
                          "declare")
        params.append({"name": name, "shape": [Lit(d) for d in val.shape],
                       "dtype": val.dtype})
    return tuple(params)


def _lines(kernel) -> list[Line]:
    found = list(getattr(kernel, "lines", ()))
    for p in getattr(kernel, "passes", ()):
        found += list(p.before) + list(p.loop)
    return found


def _unify(values: list, inits: list, path: str):
    """One value for every shape: Lits become a constant or an init argument (match.py's
    rule), dataclasses and containers field by field, a ShapeArg and numbers one of them
    (_sized), anything else must be equal. A Plan's sizes are the ShapeArgs its unified
    kernels still take."""
    first = values[0]
    if isinstance(first, Plan) and all(isinstance(v, Plan) for v in values):
        fixed = {"sizes": (), "parts": tuple(_unify([v.parts[i] for v in values], inits,
                                                     f"{path}.parts[{i}]")
                                              for i in range(len(first.parts)))
                 if all(len(v.parts) == len(first.parts) for v in values) else None}
        if fixed["parts"] is None:
            raise _Differs(f"{path}.parts differs between shapes, so no single kernel "
                           "structure fits every shape")
        plan = replace(first, **fixed, **{
            f.name: _unify([getattr(v, f.name) for v in values], inits, f"{path}.{f.name}")
            for f in fields(first) if f.name not in fixed})
        used = [o for k in plan.kernels for ln in _lines(k) for o in ln.operands]
        known = dict.fromkeys(s for v in values for s in v.sizes)
        return replace(plan, sizes=tuple(s for s in known if s in used))
    if all(isinstance(v, Lit) for v in values):
        return _resolve([v.value for v in values], inits, path)
    if any(isinstance(v, ShapeArg) for v in values) \
            and all(isinstance(v, ShapeArg | Lit) for v in values):
        found = _sized(values, inits, path)
        if found is not None:
            return found
    if is_dataclass(first) and all(type(v) is type(first) for v in values):
        return replace(first, **{f.name: _unify([getattr(v, f.name) for v in values], inits,
                                                f"{path}.{f.name}")
                                 for f in fields(first)})
    if isinstance(first, tuple | list) and all(type(v) is type(first) and len(v) == len(first)
                                               for v in values):
        return type(first)(_unify([v[i] for v in values], inits, f"{path}[{i}]")
                           for i in range(len(first)))
    if isinstance(first, dict) and all(isinstance(v, dict) and v.keys() == first.keys()
                                       for v in values):
        return {k: _unify([v[k] for v in values], inits, f"{path}.{k}") for k in first}
    if all(isinstance(v, str) for v in values) and any(marked(v) for v in values):
        agreed = agree(values)  # graph_parts.extent's choices: what every shape allows
        if agreed is None:
            raise _Differs(f"{path} differs between shapes, so no single kernel structure "
                           "fits every shape")
        return agreed
    if any(v != first for v in values):
        raise _Differs(f"{path} differs between shapes, so no single kernel structure fits "
                       "every shape")
    return first


def _sized(values: list, inits: list, path: str):
    """A kernel scalar read as an input's size at one shape (sizes.py) and as a number at
    another: the ShapeArg where it gives that number at every shape (a twin that could
    not run left `1 / sqrt(128)` a number), else what the numbers follow (an init argument
    that equalled twice the batch at the small shape). None where neither holds."""
    numbers = [_value_at(v, at) if isinstance(v, ShapeArg) else v.value
               for v, at in zip(values, inits, strict=True)]
    if any(n is None for n in numbers) or not all(isinstance(at, _At) for at in inits):
        return None
    for arg in dict.fromkeys(v for v in values if isinstance(v, ShapeArg)):
        if all(_close(_value_at(arg, at), n) for at, n in zip(inits, numbers, strict=True)):
            return arg
    try:
        found = _resolve(numbers, inits, path)
    except _Differs:
        return None
    return found if "init" in found else None


def _close(a: float | None, b: float) -> bool:
    return a is not None and (a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b)))


def knob_values(plan: Plan, tune: dict[str, int] | None) -> dict[str, int]:
    return knobs(list(plan.families), tune, plan.label)


def _unkept_note(unkept: tuple[str, ...]) -> str:
    if not unkept:
        return ""
    return (f"The reference's forward also updates {', '.join(unkept)} in place (training "
            "mode); its output never reads them, and this candidate leaves them as they are.")


def render_plan(plan: Plan, tune: dict[str, int] | None = None) -> tuple[str, dict[str, int]]:
    values = knob_values(plan, tune)
    inits = sorted({o["init"] for k in plan.all_kernels for ln in _lines(k) for o in ln.operands
                    if isinstance(o, dict) and "init" in o})
    if plan.parts:
        kernels, methods = _render_parts(plan, values)
    else:
        kernels, body = _render_body(plan, values)
        methods = [("forward", body)]
    lines = "\n".join(line for _, body in methods for line in body)
    source = header(plan.label, values, _unkept_note(plan.unkept)) + \
        helpers(kernels + lines) + \
        kernels + "\n\n" + \
        "class ModelNew(nn.Module):\n" + \
        constructor(list(plan.params), {f"init{i}": {"init": i} for i in inits},
                    _kept_sizes(methods)) + \
        "".join(f"\n    def {name}({signature(list(plan.args))}):\n" +
                "\n".join("        " + line for line in body) + "\n" for name, body in methods)
    return source, values


def _kept_sizes(methods: list) -> dict[str, dict]:
    """`self.size{k}`: constructor argument k as an int, where a forward line reads it (an
    arange bound that follows the constructor, graph_parts._bound; a top-k's k)."""
    found = {int(k) for _, body in methods for line in body
             for k in re.findall(r"self\.size(\d+)\b", line)}
    return {f"size{k}": {"init": k} for k in sorted(found)}


def _render_body(plan: Plan, values: dict[str, int], suffix: str = "") -> tuple[str, list]:
    """The kernels' source and the forward's lines computing one output; `suffix` renames
    the kernels (each output's own)."""
    shared = share(_pieces(plan, values))
    kernels, launch = shared.kernels, list(shared.launch)
    for name in re.findall(r"^def (\w+)\(", kernels, re.M) if suffix else ():
        renamed = re.compile(rf"\b{name}\b")
        kernels = renamed.sub(name + suffix, kernels)
        launch = [renamed.sub(name + suffix, line) for line in launch]
    return kernels, launch + ([plan.reshape] if plan.reshape else []) + ["return out"]


def _pieces(plan: Plan, values: dict[str, int], tag: str = "") -> list[Piece]:
    """The plan's stages first, each ending by naming its output (`st9 = out`), its kernels
    renamed by `tag` (its own name) so none clashes with another stage's; then the lines
    binding the plan's numbers and views, then its kernels."""
    found = []
    for name, stage in plan.stages:
        found += _pieces(stage, values, f"_{name}")
        found.append(Piece("", (*([stage.reshape] if stage.reshape else []), f"{name} = out")))
    own = [by_name(k.family).render(k, values) for k in plan.kernels]
    names = [n for p in own for n in re.findall(r"^def (\w+)\(", p.kernel, re.M)] if tag else []
    for name in names:
        renamed = re.compile(rf"\b{name}\b")
        own = [Piece(renamed.sub(name + tag, p.kernel),
                     tuple(renamed.sub(name + tag, line) for line in p.launch)) for p in own]
    bind = [f"arg{i} = float({plan.args[i]})" for i in plan.numbers] + \
        [s.binding(plan.args) for s in plan.sizes] + list(plan.views)
    return [*found, Piece("", tuple(bind)), *own]


def _render_parts(plan: Plan, values: dict[str, int]) -> tuple[str, list]:
    """Several outputs: a method per output, which forward calls in order."""
    kernels, methods = "", []
    for k, part in enumerate(plan.parts):
        text, body = _render_body(part, values, f"_o{k}")
        kernels += text
        methods.append((f"output{k}", body))
    call = ", ".join(plan.args)
    outs = ", ".join(f"self.output{k}({call})" for k in range(len(plan.parts)))
    return kernels, [("forward", [f"return ({outs},)"]), *methods]
