"""Numbers in a trace that are an input's size (issue 30, form 7): `F.kl_div(...,
reduction="batchmean")` divides by `input.size(0)` in Python, so the trace holds the number 32,
and a kernel with `/ 32.0` written in fails every other batch size (the CPU's copy, the
verifier's secret twin). The task is traced again at a twin shape, every data size grown by a
different amount; a number that moved to the twin's size of an input dim is that dim's
run-time size, a `ShapeArg` the forward binds as `float(x.shape[d])`. So is a number that
moved as a size's reciprocal, square root or reciprocal square root: attention's
`1 / math.sqrt(q.shape[-1])` becomes `1.0 / math.sqrt(q.shape[3])`, a mean's `1 / n`
becomes `1.0 / x.shape[1]`. A constant times one of those, or times a size less one (label
smoothing's `eps / (logits.size(-1) - 1)`), is found the same way: the same constant at both
shapes (the twin's sizes grew by amounts chosen to tell the forms apart).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..tasks.admission import data_sizes
from ..tasks.loader import import_task_module
from ..types import Shape, Task
from .trace import Trace, Untraceable, trace_shape

MIN_SIZE = 8  # smaller constants are head counts, kernel sizes, group counts: not grown


# form -> (the number from the size, the forward's expression of it over "{n}")
FORMS = {"size": (float, "float({n})"),
         "rsqrt": (lambda n: 1.0 / math.sqrt(n), "1.0 / math.sqrt({n})"),
         "inv": (lambda n: 1.0 / n, "1.0 / {n}"),
         "sqrt": (math.sqrt, "math.sqrt({n})"),
         "less1": (lambda n: n - 1.0, "({n} - 1.0)"),
         "inv_less1": (lambda n: 1.0 / (n - 1), "1.0 / ({n} - 1.0)")}


@dataclass(frozen=True)
class ShapeArg:
    """A kernel scalar that is `scale` times a form of the run-time size of forward input
    `input` along `dim`: the size, its reciprocal, square root, reciprocal square root, the
    size less one or its reciprocal (`form`)."""

    input: int
    dim: int
    form: str = "size"
    scale: float = 1.0

    @property
    def index(self) -> str:  # the kernels name scalars arg{index} (layout.scalar_code)
        tail = "" if self.form == "size" else f"_{self.form}"
        if self.scale != 1.0:  # a name per constant: '0.1' -> 'x0p1', '-2e-05' -> 'xm2em05'
            tail += "_x" + repr(self.scale).translate(str.maketrans(".-+", "pmp"))
        return f"_{self.input}_{self.dim}{tail}"

    def binding(self, arg_names: tuple[str, ...]) -> str:
        size = f"{arg_names[self.input]}.shape[{self.dim}]"
        value = FORMS[self.form][1].format(n=size)
        return f"arg{self.index} = " + (value if self.scale == 1.0 else
                                         f"{self.scale!r} * {value}")


def shape_numbers(task: Task, trace: Trace) -> dict[tuple[int, float], ShapeArg]:
    """(node, value) -> ShapeArg for each number of the trace that follows an input's size."""
    twin = _twin(task, trace.shape)
    if twin is None or len(twin.nodes) != len(trace.nodes):
        return {}
    found = {}
    for i, (a, b) in enumerate(zip(trace.nodes, twin.nodes, strict=True)):
        for (_, x), (_, y) in zip(a.args, b.args, strict=False):
            if _number(x) and _number(y) and x != y:
                where = _size_of(trace, twin, x, y)
                if where is not None:
                    found[(i, float(x))] = where
    return found


def _number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _size_of(trace: Trace, twin: Trace, x, y) -> ShapeArg | None:
    """The first input dim that is `x` in the trace and `y` in the twin, as a size first,
    then in another form, then as a constant times a form."""
    dims = [(i, d, s, t) for i, (a, b) in enumerate(zip(trace.inputs, twin.inputs, strict=True))
            if a is not None and b is not None and len(a.shape) == len(b.shape)
            for d, (s, t) in enumerate(zip(a.shape, b.shape, strict=True)) if s > 1 and t > 1]
    for scaled in (False, True):
        for form, (of, _) in FORMS.items():
            for i, d, s, t in dims:
                scale = x / of(s) if scaled else 1.0
                if _same(scale * of(s), x) and _same(scale * of(t), y):
                    return ShapeArg(i, d, form, scale)
    return None


def _same(a: float, b: float) -> bool:
    """Equal, up to the last bits of another spelling of the same formula."""
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def _twin(task: Task, shape: str) -> Trace | None:
    found = twin_trace(task, shape)
    return None if found is None else found[1]


def twin_trace(task: Task, shape: str) -> tuple[Task, Trace] | None:
    """The trace at a shape whose data sizes each grew by a different amount (equal sizes
    alike, like the verifier's twin), so a number follows at most one of them; with the task
    holding that one shape."""
    base = next(s for s in task.shapes if s.name == shape).values
    module = import_task_module(task.path)
    consts = {k: base.get(k, v) for k, v in vars(module).items()
              if not k.startswith("_") and type(base.get(k, v)) is int}
    sizes = data_sizes({k: v for k, v in consts.items() if v >= MIN_SIZE})
    growth = _growths(sorted(set(sizes.values())))
    values = base | {k: v + growth[v] for k, v in sizes.items()}
    if values == base:
        return None
    twin = replace(task, shapes=(Shape("twin~", values),))
    traced = trace_shape(twin, "twin~")
    return None if isinstance(traced, Untraceable) else (twin, traced)


def _growths(sizes: list[int]) -> dict[int, int]:
    """A different amount for each size, none keeping two sizes' ratio: grown by amounts in
    that ratio (16 by 1 and 32 by 2), a number that is a constant times one size (a
    timestep embedding's `/ num_freqs`, 32) also reads as a constant times the other (2 ×
    the batch of 16), and the kernel was written with the wrong size."""
    growth: dict[int, int] = {}
    for v in sizes:
        amount = max(growth.values(), default=0) + 1
        while any(amount * u == g * v for u, g in growth.items()):
            amount += 1
        growth[v] = amount
    return growth
