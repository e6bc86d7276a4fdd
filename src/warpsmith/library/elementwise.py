"""Elementwise: any DAG of pointwise ops over same-shaped inputs, fused into one kernel that
reads each input once and writes the output once, computing in fp32 in between."""

from __future__ import annotations

from . import ops
from .match import FLOAT_DTYPES, POINTWISE_FORMS, Lit, _is_number, pointwise_form
from .render import constructor, fill, header, signature
from .trace import Node, Ref, Trace

# form -> Triton expression over fp32 values: {t0}, {t1} tensors, {s0}… run-time scalars.
# match.POINTWISE_FORMS names the same forms and which schema arguments fill them.
EXPRESSIONS = {
    "relu": "tl.maximum({t0}, 0.0)",
    "sigmoid": "1.0 / (1.0 + tl.exp(-{t0}))",
    "silu": "{t0} / (1.0 + tl.exp(-{t0}))",
    "gelu": "0.5 * {t0} * (1.0 + tl.erf({t0} * 0.7071067811865476))",
    # 0.5 * (1 + tanh(u)) == sigmoid(2u), with u = sqrt(2/pi) * (x + 0.044715 x³)
    "gelu_tanh": "{t0} / (1.0 + tl.exp(-1.5957691216057308 * ({t0} + 0.044715 * {t0} * {t0} "
                 "* {t0})))",
    "tanh": "tanh_f32({t0})",
    "hardsigmoid": "tl.minimum(tl.maximum({t0} + 3.0, 0.0), 6.0) / 6.0",
    "hardswish": "{t0} * tl.minimum(tl.maximum({t0} + 3.0, 0.0), 6.0) / 6.0",
    "mish": "{t0} * tanh_f32(softplus_f32({t0}, 1.0, 20.0))",
    "abs": "tl.abs({t0})",
    "neg": "-{t0}",
    "exp": "tl.exp({t0})",
    "log": "tl.log({t0})",
    "sqrt": "tl.sqrt({t0})",
    "rsqrt": "1.0 / tl.sqrt({t0})",
    "sin": "tl.sin({t0})",
    "cos": "tl.cos({t0})",
    "reciprocal": "1.0 / {t0}",
    "erf": "tl.erf({t0})",
    "square": "{t0} * {t0}",
    "cube": "{t0} * {t0} * {t0}",
    "leaky_relu": "tl.where({t0} > 0.0, {t0}, {t0} * {s0})",
    "hardtanh": "tl.minimum(tl.maximum({t0}, {s0}), {s1})",
    "elu": "tl.where({t0} > 0.0, {t0} * {s1}, {s1} * {s0} * (tl.exp({t0} * {s2}) - 1.0))",
    "softplus": "softplus_f32({t0}, {s0}, {s1})",
    "clamp": "tl.minimum(tl.maximum({t0}, {s0}), {s1})",
    "clamp_min": "tl.maximum({t0}, {s0})",
    "clamp_max": "tl.minimum({t0}, {s0})",
    "add_scalar": "{t0} + {s1} * {s0}",
    "sub_scalar": "{t0} - {s1} * {s0}",
    "rsub_scalar": "{s0} - {s1} * {t0}",
    "mul_scalar": "{t0} * {s0}",
    "div_scalar": "{t0} / {s0}",
    "add": "{t0} + {s0} * {t1}",
    "sub": "{t0} - {s0} * {t1}",
    "mul": "{t0} * {t1}",
    "div": "{t0} / {t1}",
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


class Elementwise:
    name = "elementwise"
    reads = "trace"
    knobs = {"BLOCK": 4096, "NUM_WARPS": 8}

    def match(self, trace: Trace, ctx) -> dict | None:
        return match_elementwise(trace)

    def render(self, params: dict, tune: dict[str, int]) -> str:
        steps = params["steps"]
        used = sorted({t for s in steps for t in s["tensors"] if t.startswith("a")},
                      key=lambda t: int(t[1:]))
        scalars, body = self._body(steps)
        names = params["args"]
        helpers = "".join(code for name, code in HELPERS.items() if name in body)
        return header("elementwise", tune) + helpers + fill(
            KERNEL,
            pointers=", ".join(f"{a}_ptr" for a in used),
            scalars="".join(f"{s}, " for s, _ in scalars),
            loads="\n".join(f"    {a} = tl.load({a}_ptr + offsets, mask=mask, other=0.0)"
                            ".to(tl.float32)" for a in used),
            body=body,
            output=params["output"],
            init=constructor([], dict(scalars)),
            signature=signature(names),
            contiguous="\n".join(f"        {a} = {names[int(a[1:])]}.contiguous()" for a in used),
            first=used[0],
            inputs=", ".join(used),
            scalar_args="".join(f"self.{s}, " for s, _ in scalars),
        )

    def _body(self, steps: list[dict]) -> tuple[list[tuple[str, dict]], str]:
        scalars, lines = [], []
        for index, step in enumerate(steps):
            names = {f"t{i}": t for i, t in enumerate(step["tensors"])}
            for i, spec in enumerate(step["scalars"]):
                names[f"s{i}"] = f"s{len(scalars)}"
                scalars.append((f"s{len(scalars)}", spec))
            lines.append(f"    v{index} = " + EXPRESSIONS[step["form"]].format(**names))
        return scalars, "\n".join(lines)


# ---- the matcher: which traces this family implements --------------------

def match_elementwise(trace: Trace) -> dict | None:
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
    return {"steps": steps, "output": _value_name(trace.output)}


def _pointwise_step(trace: Trace, node: Node, out_meta) -> dict | None:
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
    return {"form": form, "tensors": [_value_name(r) for r in refs],
            "scalars": [Lit(float(v)) for v in values]}


def _value_name(ref: Ref) -> str:
    return f"a{ref.key}" if ref.kind == "input" else f"v{ref.key[0]}"


