"""ATen pointwise ops as Triton fp32 expressions, for the graph generator (graph.py).

An expression is a template over its operands `{0}`, `{1}`, …: values already in registers as
fp32 (or as booleans, for comparisons), or run-time scalars. `pointwise(node)` returns the
template and the operands, taken from the node's schema arguments, or a reason it cannot.
"""

from __future__ import annotations

from .conv_launch import LAUNCH as CONV_LAUNCH
from .trace import Node, Ref

# The one table of pointwise formulas: the graph generator's (pointwise below) and the exact
# elementwise family's (elementwise.FORMULAS names its forms over these entries).

# One operand, no scalar arguments.
UNARY = {
    "relu": "tl.maximum({0}, 0.0)",
    "sigmoid": "1.0 / (1.0 + tl.exp(-{0}))",
    "silu": "{0} / (1.0 + tl.exp(-{0}))",
    "tanh": "tanh_f32({0})",
    "hardsigmoid": "tl.minimum(tl.maximum({0} + 3.0, 0.0), 6.0) / 6.0",
    "hardswish": "{0} * tl.minimum(tl.maximum({0} + 3.0, 0.0), 6.0) / 6.0",
    "mish": "{0} * tanh_f32(softplus_f32({0}, 1.0, 20.0))",
    "abs": "tl.abs({0})",
    "neg": "-{0}",
    "exp": "tl.exp({0})",
    "exp2": "tl.exp2({0})",
    "expm1": "(tl.exp({0}) - 1.0)",
    "log": "tl.log({0})",
    "log2": "tl.log2({0})",
    "log10": "(tl.log({0}) * 0.4342944819032518)",
    "log1p": "tl.log(1.0 + {0})",
    "sqrt": "tl.sqrt({0})",
    "rsqrt": "(1.0 / tl.sqrt({0}))",
    "sin": "tl.sin({0})",
    "cos": "tl.cos({0})",
    "reciprocal": "(1.0 / {0})",
    "erf": "tl.erf({0})",
    "floor": "tl.floor({0})",
    "ceil": "tl.ceil({0})",
    "sign": "tl.where({0} > 0.0, 1.0, tl.where({0} < 0.0, -1.0, 0.0))",
    "logical_not": "({0} == 0)",
}
# Two tensor-or-scalar operands (self, other).
BINARY = {
    "mul": "{0} * {1}",
    "div": "{0} / {1}",
    "maximum": "tl.maximum({0}, {1})",
    "minimum": "tl.minimum({0}, {1})",
    "gt": "({0} > {1})", "lt": "({0} < {1})", "ge": "({0} >= {1})", "le": "({0} <= {1})",
    "eq": "({0} == {1})", "ne": "({0} != {1})",
    "logical_and": "(({0} != 0) & ({1} != 0))",
    "logical_or": "(({0} != 0) | ({1} != 0))",
    # xlogy(x, y) = 0 where x == 0 (even if y is 0), else x·log(y)
    "xlogy": "tl.where({0} == 0.0, 0.0, {0} * tl.log({1}))",
}
# self, other and alpha, alpha an operand: elementwise.py passes it at run time; the graph
# generator writes a constant alpha into the text (_add_sub).
ALPHA = {"add": "{0} + {2} * {1}", "sub": "{0} - {2} * {1}", "rsub": "{1} - {2} * {0}"}
GELU = {"none": "0.5 * {0} * (1.0 + tl.erf({0} * 0.7071067811865476))",
        # 0.5 * (1 + tanh(u)) == sigmoid(2u), with u = sqrt(2/pi) * (x + 0.044715 x³)
        "tanh": "{0} / (1.0 + tl.exp(-1.5957691216057308 * ({0} + 0.044715 * {0} * {0} * {0})))"}
# self, then its run-time number arguments in this order
SCALAR_ARGS = {
    "leaky_relu": (("negative_slope",), "tl.where({0} > 0.0, {0}, {0} * {1})"),
    "hardtanh": (("min_val", "max_val"), "tl.minimum(tl.maximum({0}, {1}), {2})"),
    "elu": (("alpha", "scale", "input_scale"),
            "tl.where({0} > 0.0, {0} * {2}, {2} * {1} * (tl.exp({0} * {3}) - 1.0))"),
    "softplus": (("beta", "threshold"), "softplus_f32({0}, {1}, {2})"),
}
# pow(x, e) for exponents with an exact cheaper form; any other exponent uses exp·log,
# which is only defined for positive bases and so is declined.
POWERS = {1: "{0}", 2: "{0} * {0}", 3: "{0} * {0} * {0}", 4: "({0} * {0}) * ({0} * {0})",
          0.5: "tl.sqrt({0})", -0.5: "(1.0 / tl.sqrt({0}))", -1: "(1.0 / {0})",
          -2: "(1.0 / ({0} * {0}))"}
FLOAT_CASTS = {"torch.float32": "{0}", "torch.float64": "{0}",
               "torch.float16": "{0}.to(tl.float16).to(tl.float32)",
               "torch.bfloat16": "{0}.to(tl.bfloat16).to(tl.float32)"}

# Helpers a kernel file defines only when an expression calls them.
HELPERS = {
    "conv_launch": CONV_LAUNCH,
    # torch.tril_indices / triu_indices (graph_take.py's leaf) made by a kernel: the forward
    # may not call them. Row i's positions start after the counts of the rows before it.
    "tri_indices": '''
@triton.jit
def tri_indices_kernel(out_ptr, total, ROWS, COL, OFFSET, LOWER: tl.constexpr,
                       RBLOCK: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    rows = tl.arange(0, RBLOCK)
    if LOWER:
        counts = tl.minimum(tl.maximum(rows + OFFSET + 1, 0), COL)
        first = 0
    else:
        counts = COL - tl.minimum(tl.maximum(rows + OFFSET, 0), COL)
        first = tl.minimum(tl.maximum(i + OFFSET, 0), COL)
    start = tl.sum(tl.where(rows < i, counts, 0), 0)
    n = tl.sum(tl.where(rows == i, counts, 0), 0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    tl.store(out_ptr + start + cols, (cols * 0 + i).to(tl.int64), mask=mask)
    tl.store(out_ptr + total + start + cols, (first + cols).to(tl.int64), mask=mask)


def tri_indices(row, col, offset, lower, device):
    counts = [min(max(r + offset + 1, 0), col) if lower else col - min(max(r + offset, 0), col)
              for r in range(row)]
    out = torch.empty((2, sum(counts)), dtype=torch.int64, device=device)
    if out.numel():
        tri_indices_kernel[(row,)](out, out.shape[1], row, col, offset, LOWER=lower,
                                   RBLOCK=triton.next_power_of_2(row),
                                   BLOCK=triton.next_power_of_2(col))
    return out
''',
    "tanh_f32": '''
@triton.jit
def tanh_f32(x):
    # tl has no tanh on every backend. Near 0, 2·sigmoid(2x) − 1 keeps only absolute
    # precision (~6e-8): a batch norm after it divides that by a small std (KernelBench
    # level 2 73's twin failed 1 run in ~6). Below |x| = 1/4 its Taylor series to x^11
    # (next term under 3e-10 relative); above, 1 − 2/(1 + e^(2|x|)) with the sign, which
    # saturates cleanly at ±1 (exp overflows to inf) and keeps NaN.
    ax = tl.abs(x)
    x2 = x * x
    series = x * (1.0 + x2 * (-0.3333333333333333 + x2 * (0.13333333333333333 + x2 * (
        -0.05396825396825397 + x2 * (0.021869488536155203 + x2 * -0.008863235529902197)))))
    far = 1.0 - 2.0 / (1.0 + tl.exp(2.0 * ax))
    return tl.where(ax < 0.25, series, tl.where(x < 0, -far, far))
''',
    "softplus_f32": '''
@triton.jit
def softplus_f32(x, beta, threshold):
    z = x * beta
    # The min keeps exp finite in the lanes where the linear branch is taken.
    soft = tl.log(1.0 + tl.exp(tl.minimum(z, threshold))) / beta
    return tl.where(z > threshold, x, soft)
''',
}


class Unsupported(Exception):
    """A pointwise op whose arguments this table cannot express (the message says which)."""


def pointwise(node: Node) -> tuple[str, list] | None:
    """(template, operands) for a pointwise node; None when the op is not pointwise at all."""
    name, args = node.name, dict(node.args)
    if node.overload == "default" and name in UNARY:
        return UNARY[name], [args["self"]]
    if name in ("max", "min") and node.overload == "other":  # torch.max(a, b)
        return BINARY[f"{name}imum"], [args["self"], args["other"]]
    if name in BINARY and node.overload in ("Tensor", "Scalar", "default", "Self", "Other"):
        return BINARY[name], [args["self"], args["other"]]
    handler = _HANDLERS.get(name)
    return handler(node, args) if handler else None


def _add_sub(node: Node, args: dict):
    """add, sub and rsub with their constant alpha written in (left out where it is 1)."""
    alpha = args.get("alpha", 1)
    template = ALPHA[node.name]
    template = template.replace("{2} * ", "") if alpha == 1 else \
        template.replace("{2}", repr(float(alpha)))
    return template, [args["self"], args["other"]]


def _pow(node: Node, args: dict):
    if node.overload != "Tensor_Scalar":
        raise Unsupported(f"pow.{node.overload}: only a tensor to a constant power is written")
    exponent = args["exponent"]
    if exponent not in POWERS:
        raise Unsupported(f"pow with exponent {exponent!r} (exact forms exist for "
                          f"{', '.join(str(e) for e in POWERS)})")
    return POWERS[exponent], [args["self"]]


def _gelu(node: Node, args: dict):
    return GELU["tanh" if args["approximate"] == "tanh" else "none"], [args["self"]]


def clamp(low: bool, high: bool) -> str:
    """clamp's template over self and the bounds it has, in that order."""
    expr, count = "{0}", 1
    if low:
        expr, count = f"tl.maximum({expr}, {{{count}}})", count + 1
    if high:
        expr = f"tl.minimum({expr}, {{{count}}})"
    return expr


def _clamp(node: Node, args: dict):
    lo, hi = args.get("min"), args.get("max")
    if isinstance(lo, Ref) or isinstance(hi, Ref):
        raise Unsupported("clamp with tensor bounds")
    bounds = [b for b in (lo, hi) if b is not None]
    return clamp(lo is not None, hi is not None), [args["self"], *bounds]


def _where(node: Node, args: dict):
    return "tl.where({0}, {1}, {2})", [args["condition"], args["self"], args["other"]]


def _masked_fill(node: Node, args: dict):
    return "tl.where({1}, {2}, {0})", [args["self"], args["mask"], args["value"]]


def _to_copy(node: Node, args: dict):
    dtype = args.get("dtype")
    out = node.outs[0].dtype
    if out == "bool":
        return "({0} != 0)", [args["self"]]
    key = f"torch.{out}" if dtype is None else dtype
    if key not in FLOAT_CASTS:
        raise Unsupported(f"a cast to {key}")
    return FLOAT_CASTS[key], [args["self"]]


def _boolean(node: Node, args: dict):
    """bitwise ops on masks (`keep = a & b`, `~keep`): logical ones; on integers whose values
    fp32 holds exactly, integer ones (_integer)."""
    if node.outs[0].dtype != "bool":
        return _integer(node, args)
    if node.name == "bitwise_not":
        return "({0} == 0)", [args["self"]]
    op = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}[node.name]
    return f"(({{0}} != 0) {op} ({{1}} != 0))", [args["self"], args["other"]]


# integer dtypes whose every value fp32 holds exactly (a kernel's registers are fp32): the
# bitwise ops compute in int32 and wrap to the dtype as torch does (`(q << 4)` of uint8)
EXACT_INTEGERS = {"uint8": "tl.uint8", "int8": "tl.int8", "int16": "tl.int16"}
BITWISE = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
           "bitwise_left_shift": "<<", "bitwise_right_shift": ">>",
           "__lshift": "<<", "__rshift": ">>"}  # Node.name strips __rshift__'s last "_"s


def _integer(node: Node, args: dict):
    """bitwise and, or, xor, not and shifts of small integers (int4 weights unpacked from
    uint8 by `q & 0x0F` and `q >> 4`): each operand cast to int32 (a scalar operand too,
    wherever the kernel has it), the result truncated to the output's dtype."""
    dtype = node.outs[0].dtype
    if dtype not in EXACT_INTEGERS:
        raise Unsupported(f"{node.name} on {dtype} (on boolean masks and on "
                          f"{', '.join(EXACT_INTEGERS)}, whose values fp32 holds exactly)")
    wrap = f".to({EXACT_INTEGERS[dtype]}).to(tl.float32)"
    if node.name == "bitwise_not":
        return f"(~tl.cast({{0}}, tl.int32)){wrap}", [args["self"]]
    op = BITWISE[node.name]
    return f"(tl.cast({{0}}, tl.int32) {op} tl.cast({{1}}, tl.int32)){wrap}", \
        [args["self"], args["other"]]


def _identity(node: Node, args: dict):
    return "{0}", [args["self"]]


def _scalar_args(node: Node, args: dict):
    """An op whose extra schema arguments are run-time numbers, in template order."""
    names, template = SCALAR_ARGS[node.name]
    return template, [args["self"], *(args[n] for n in names)]


_HANDLERS = {
    "add": _add_sub, "sub": _add_sub, "rsub": _add_sub, "pow": _pow, "gelu": _gelu,
    "clamp": _clamp, "clamp_min": _clamp, "clamp_max": _clamp, "where": _where,
    "masked_fill": _masked_fill, "_to_copy": _to_copy, "clone": _identity,
    "alias": _identity, "detach": _identity, "lift_fresh": _identity,
    "bitwise_and": _boolean, "bitwise_or": _boolean, "bitwise_xor": _boolean,
    "bitwise_not": _boolean, "bitwise_left_shift": _integer, "bitwise_right_shift": _integer,
    "__lshift": _integer, "__rshift": _integer,
    **{name: _scalar_args for name in SCALAR_ARGS},
}
