"""Elementwise: any DAG of pointwise ops over same-shaped inputs, fused into one kernel that
reads each input once and writes the output once, computing in fp32 in between."""

from __future__ import annotations

from dataclasses import dataclass

from . import ops
from .match import FLOAT_DTYPES, POINTWISE_FORMS, Lit, Params, _is_number, pointwise_form
from .render import constructor, fill, header, signature
from .trace import Node, Ref, Trace

# form -> Triton expression over fp32 values, ops.py's formula: {0}, {1}… its operands, the
# tensors then the run-time scalars that match.POINTWISE_FORMS names for the form.
FORMULAS = {
    **{name: ops.UNARY[name] for name in (
        "relu", "sigmoid", "silu", "tanh", "hardsigmoid", "hardswish", "mish", "abs", "neg",
        "exp", "log", "sqrt", "rsqrt", "sin", "cos", "reciprocal", "erf")},
    "gelu": ops.GELU["none"], "gelu_tanh": ops.GELU["tanh"],
    "square": ops.POWERS[2], "cube": ops.POWERS[3],
    **{name: template for name, (_, template) in ops.SCALAR_ARGS.items()},
    "clamp": ops.clamp(True, True), "clamp_min": ops.clamp(True, False),
    "clamp_max": ops.clamp(False, True),
    **{f"{name}_scalar": ops.ALPHA[name] for name in ("add", "sub", "rsub")},
    "add": ops.ALPHA["add"], "sub": ops.ALPHA["sub"],
    "mul_scalar": ops.BINARY["mul"], "div_scalar": ops.BINARY["div"],
    "mul": ops.BINARY["mul"], "div": ops.BINARY["div"],
}

# Helpers emitted only when an expression calls them: the graph generator's own (ops.py),
# one text of each for both.
HELPERS = ops.HELPERS

KERNEL = '''
@triton.jit
def elementwise_kernel($pointers, out_ptr, n, ${scalars}BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
$loads
$body
    tl.store(out_ptr + offsets, $output.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
$init
    def forward($signature):
$contiguous
        out = torch.empty_like($first)
        n = out.numel()
        elementwise_kernel[(triton.cdiv(n, BLOCK),)]($inputs, out, n, ${scalar_args}BLOCK=BLOCK,
                                                     num_warps=NUM_WARPS)
        return out
'''


@dataclass(frozen=True)
class Step:
    form: str  # a key of FORMULAS
    tensors: tuple[str, ...]  # "a{i}" the forward's input i, "v{k}" step k's value
    scalars: tuple[Lit | dict, ...]  # its run-time numbers, in POINTWISE_FORMS' order


@dataclass(frozen=True, kw_only=True)
class ElementwiseParams(Params):
    steps: tuple[Step, ...]
    output: str  # the value returned


class Elementwise:
    name = "elementwise"
    reads = "trace"
    knobs = {"BLOCK": 4096, "NUM_WARPS": 8}

    def match(self, trace: Trace, ctx) -> ElementwiseParams | None:
        return match_elementwise(trace)

    def render(self, params: ElementwiseParams, tune: dict[str, int]) -> str:
        steps = params.steps
        used = sorted({t for s in steps for t in s.tensors if t.startswith("a")},
                      key=lambda t: int(t[1:]))
        scalars, body = self._body(steps)
        names = params.args
        helpers = "".join(code for name, code in HELPERS.items() if name in body)
        return header("elementwise", tune) + helpers + fill(
            KERNEL,
            pointers=", ".join(f"{a}_ptr" for a in used),
            scalars="".join(f"{s}, " for s, _ in scalars),
            loads="\n".join(f"    {a} = tl.load({a}_ptr + offsets, mask=mask, other=0.0)"
                            ".to(tl.float32)" for a in used),
            body=body,
            output=params.output,
            init=constructor([], dict(scalars)),
            signature=signature(names),
            contiguous="\n".join(f"        {a} = {names[int(a[1:])]}.contiguous()" for a in used),
            first=used[0],
            inputs=", ".join(used),
            scalar_args="".join(f"self.{s}, " for s, _ in scalars),
        )

    def _body(self, steps: tuple[Step, ...]) -> tuple[list[tuple[str, dict]], str]:
        scalars, lines = [], []
        for index, step in enumerate(steps):
            names = list(step.tensors)
            for spec in step.scalars:
                names.append(f"s{len(scalars)}")
                scalars.append((f"s{len(scalars)}", spec))
            lines.append(f"    v{index} = " + _bare(FORMULAS[step.form]).format(*names))
        return scalars, "\n".join(lines)


def _bare(expr: str) -> str:
    """The formula without the parentheses around all of it: ops.py's keep it whole inside a
    larger expression, and here each is a statement's whole right-hand side."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return expr
    depth = 0
    for i, c in enumerate(expr):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0 and i < len(expr) - 1:
            return expr  # "(a) * (b)": the first pair closes before the end
    return expr[1:-1]


# ---- the matcher: which traces this family implements --------------------

def match_elementwise(trace: Trace) -> ElementwiseParams | None:
    if not trace.nodes or trace.dtype not in FLOAT_DTYPES:
        return None
    out_meta = trace.meta(trace.output)
    if any(x is None or x != out_meta for x in trace.inputs):
        return None  # every input a tensor of the output's shape and dtype: no broadcasting
    if out_meta.dtype != trace.dtype:
        return None
    steps = []
    for node in trace.nodes:
        step = _pointwise_step(trace, node, out_meta)
        if step is None:
            return None
        steps.append(step)
    return ElementwiseParams(steps=tuple(steps), output=_value_name(trace.output))


def _pointwise_step(trace: Trace, node: Node, out_meta) -> Step | None:
    form = pointwise_form(node)
    if form is None or node.outs != (out_meta,):
        return None
    args = dict(node.args)
    tensors, scalars = POINTWISE_FORMS[form]
    refs = [args[name] for name in tensors]
    if not all(isinstance(r, Ref) and r.kind in ("input", "node") and trace.meta(r) == out_meta
               for r in refs):
        return None
    values = [args[name] for name in scalars]
    if not all(_is_number(v) for v in values):
        return None
    return Step(form, tuple(_value_name(r) for r in refs), tuple(Lit(float(v)) for v in values))


def _value_name(ref: Ref) -> str:
    return f"a{ref.key}" if ref.kind == "input" else f"v{ref.key[0]}"


