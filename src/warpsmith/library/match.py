"""Which library family implements a task, decided from its traced ATen ops, never guessed.

Each matcher reads one shape's trace and either returns the family's parameters or None; a
task is covered only when one matcher accepts the trace of every declared shape with the same
structure. Numbers a kernel takes at run time (a slope, an eps, a parameter's size) are marked
`Lit`; across shapes each becomes a constant or, when it follows one of the constructor's
arguments at every shape, that argument (`unify`). Anything else that differs between shapes
(a reduced dim, an exponent, an op) means the task is not covered.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..types import Task
from .trace import Node, Ref, Trace, Untraceable, trace_task

FLOAT_DTYPES = ("float32", "float16", "bfloat16")


@dataclass(frozen=True)
class Match:
    family: str
    params: dict[str, Any]


@dataclass(frozen=True)
class NoMatch:
    reason: str
    # The family whose structure matched, where only a limitation declined it (bf16 tl.dot):
    # a sibling's rendering is then still close to this task's answer (prompts/examples.py).
    family: str | None = None


@dataclass(frozen=True)
class Lit:
    """A number the kernel takes at run time, resolved by `unify` into a constant or an init
    argument: {"value": v} or {"init": i}."""

    value: float | int


Matcher = Callable[[Trace], "dict | NoMatch | None"]
MATCHERS: dict[str, Matcher] = {}
# families whose kernels make the forward's in-place updates (batch norm's running statistics);
# no other matcher sees a trace that changes an input or a parameter
UPDATES_STATE = {"batch_norm"}


def matcher(family: str):
    def register(fn: Matcher) -> Matcher:
        MATCHERS[family] = fn
        return fn
    return register


def match_task(task: Task) -> Match | NoMatch:
    traces = trace_task(task)
    if isinstance(traces, Untraceable):
        return NoMatch(traces.reason)
    matches = [match_trace(t) for t in traces]
    failed = {t.shape: m for t, m in zip(traces, matches, strict=True)
              if isinstance(m, NoMatch)}
    if failed:
        if len(failed) == len(traces) and len({m.reason for m in failed.values()}) == 1:
            return next(iter(failed.values()))
        shape, first = next(iter(failed.items()))
        return NoMatch(f"shape {shape!r}: {first.reason}", first.family)
    families = {m.family for m in matches}
    if len(families) > 1:
        return NoMatch(f"shapes trace to different families: {', '.join(sorted(families))}")
    params = unify([m.params for m in matches], [t.init_inputs for t in traces])
    if isinstance(params, NoMatch):
        return params
    return Match(matches[0].family, params)


def match_trace(trace: Trace) -> Match | NoMatch:
    if _single_output(trace) is None:
        return NoMatch("forward does not return exactly one tensor made by an op")
    mutates = _mutates_state(trace)
    for family, fn in MATCHERS.items():
        if mutates and family not in UPDATES_STATE:
            continue
        params = fn(trace)
        if isinstance(params, NoMatch):  # the pattern fits, but the family declines it
            return params
        if params is not None:
            return Match(family, {"args": list(trace.arg_names), "dtype": trace.dtype} | params)
    if mutates:
        return NoMatch("forward changes an input or a parameter in place")
    return NoMatch(f"no library family implements the op sequence {_op_list(trace)}")


# ---- unify: one set of parameters for every shape ------------------------------------------

def unify(params: list[dict], inits: list[tuple]) -> dict | NoMatch:
    try:
        return _unify(params, inits, "params")
    except _Differs as e:
        return NoMatch(str(e))


class _Differs(Exception):
    pass


def _unify(values: list, inits: list[tuple], path: str):
    first = values[0]
    if all(isinstance(v, Lit) for v in values):
        return _resolve([v.value for v in values], inits, path)
    if isinstance(first, dict) and all(isinstance(v, dict) and v.keys() == first.keys()
                                       for v in values):
        return {k: _unify([v[k] for v in values], inits, f"{path}.{k}") for k in first}
    if isinstance(first, list | tuple) and all(type(v) is type(first) and len(v) == len(first)
                                               for v in values):
        return type(first)(_unify([v[i] for v in values], inits, f"{path}[{i}]")
                           for i in range(len(first)))
    if any(v != first for v in values):
        raise _Differs(f"{path} differs between shapes ({values}), so no single kernel "
                       "structure fits every shape")
    return first


def _resolve(values: list, inits: list[tuple], path: str) -> dict:
    """An init argument wins when it equals the value at every shape: then the candidate
    follows the constructor, as the reference does."""
    for i in range(min(len(init) for init in inits)):
        if all(_is_number(init[i]) and init[i] == v for init, v in zip(inits, values,
                                                                      strict=True)):
            return {"init": i}
    if all(v == values[0] for v in values):
        return {"value": values[0]}
    raise _Differs(f"{path} takes the values {values} across shapes and follows none of "
                   "the constructor's arguments")


def _is_number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


# ---- helpers over one trace -----------------------------------------------------------------

def _single_output(trace: Trace) -> Ref | None:
    out = trace.output
    return out if isinstance(out, Ref) and out.kind == "node" else None


def _mutates_state(trace: Trace) -> bool:
    """An in-place op on an op's own result is plain dataflow; on an input it is a side
    effect the candidate would have to reproduce."""
    for node in trace.nodes:
        if node.op.split(".")[0].endswith("_") and node.args:
            target = node.args[0][1]
            if not (isinstance(target, Ref) and target.kind == "node"):
                return True
    return False


def _op_list(trace: Trace) -> str:
    names = list(dict.fromkeys(f"aten.{n.op}" for n in trace.nodes))
    if not names:
        return "(none: forward runs no ATen op)"
    return ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")


def _ops(trace: Trace) -> tuple[str, ...]:
    return tuple(n.op for n in trace.nodes)


def _out(i: int, k: int = 0) -> Ref:
    return Ref("node", (i, k))


def _is_input(ref, index: int | None = None) -> bool:
    return isinstance(ref, Ref) and ref.kind == "input" and (index is None or ref.key == index)


def _is_param(ref) -> bool:
    return isinstance(ref, Ref) and ref.kind == "param"


def _one_float_input(trace: Trace) -> bool:
    """Forward takes exactly one tensor, of the task's floating dtype."""
    return len(trace.inputs) == 1 and trace.inputs[0] is not None \
        and trace.inputs[0].dtype == trace.dtype and trace.dtype in FLOAT_DTYPES


def _last_dim(dim, ndim: int) -> bool:
    dims = dim if isinstance(dim, tuple) else (dim,)
    return len(dims) == 1 and isinstance(dims[0], int) and dims[0] % ndim == ndim - 1


def _parameter(trace: Trace, ref) -> dict | None:
    """A state_dict entry the candidate must declare, with its size as Lits."""
    if not _is_param(ref):
        return None
    if not all(part.isidentifier() and not keyword.iskeyword(part)
               for part in ref.key.split(".")):
        return None  # "0.weight" (nn.Sequential) cannot be an attribute path in ModelNew
    meta = trace.params[ref.key]
    return {"name": ref.key, "shape": [Lit(d) for d in meta.shape], "dtype": meta.dtype}


def _uses(trace: Trace, ref: Ref) -> int:
    return sum(1 for n in trace.nodes for _, v in n.args
               if v == ref or (isinstance(v, tuple) and ref in v))


# ---- elementwise: a DAG of pointwise ops over same-shaped inputs ----------------------------

# form -> (tensor operands, run-time scalar operands), by schema name. elementwise.py holds the
# Triton expression of each form; test_library checks the two tables agree.
POINTWISE_FORMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    **{name: (("self",), ()) for name in (
        "relu", "sigmoid", "silu", "gelu", "gelu_tanh", "tanh", "hardsigmoid", "hardswish",
        "mish", "abs", "neg", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "reciprocal", "erf",
        "square", "cube")},
    "leaky_relu": (("self",), ("negative_slope",)),
    "hardtanh": (("self",), ("min_val", "max_val")),
    "elu": (("self",), ("alpha", "scale", "input_scale")),
    "softplus": (("self",), ("beta", "threshold")),
    "clamp": (("self",), ("min", "max")),
    "clamp_min": (("self",), ("min",)),
    "clamp_max": (("self",), ("max",)),
    "add_scalar": (("self",), ("other", "alpha")),
    "sub_scalar": (("self",), ("other", "alpha")),
    "rsub_scalar": (("self",), ("other", "alpha")),
    "mul_scalar": (("self",), ("other",)),
    "div_scalar": (("self",), ("other",)),
    "add": (("self", "other"), ("alpha",)),
    "sub": (("self", "other"), ("alpha",)),
    "mul": (("self", "other"), ()),
    "div": (("self", "other"), ()),
}
_UNARY_OPS = {"relu", "sigmoid", "silu", "tanh", "hardsigmoid", "hardswish", "mish", "abs",
              "neg", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "reciprocal", "erf"}
_POW_FORMS = {2: "square", 3: "cube", 0.5: "sqrt", -1: "reciprocal", -0.5: "rsqrt"}


def pointwise_form(node: Node) -> str | None:
    """The form a node computes, or None when it is no pointwise op the library knows."""
    name, overload = node.name, node.overload
    args = dict(node.args)
    if name in _UNARY_OPS and overload == "default":
        return name
    if name == "gelu" and overload == "default":
        return {"none": "gelu", "tanh": "gelu_tanh"}.get(args["approximate"])
    if name in ("leaky_relu", "hardtanh", "elu", "softplus", "clamp_min", "clamp_max") \
            and overload == "default":
        return name
    if name == "clamp" and overload == "default":
        lo, hi = args["min"], args["max"]
        return {(True, True): "clamp", (True, False): "clamp_min",
                (False, True): "clamp_max"}.get((lo is not None, hi is not None))
    if name == "pow" and overload == "Tensor_Scalar":
        return _POW_FORMS.get(args["exponent"])
    if name in ("add", "sub", "mul", "div", "rsub") and overload in ("Tensor", "Scalar"):
        tensor_other = isinstance(args["other"], Ref)
        if name == "rsub":
            return None if tensor_other else "rsub_scalar"
        return name if tensor_other else f"{name}_scalar"
    return None


@matcher("elementwise")
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


# ---- softmax and log-softmax over the last dim ----------------------------------------------

@matcher("softmax")
def match_softmax(trace: Trace) -> dict | None:
    if _ops(trace) not in (("_softmax.default",), ("_log_softmax.default",)):
        return None
    node = trace.nodes[0]
    ndim = len(trace.inputs[0].shape) if _one_float_input(trace) else 0
    if not (ndim and _is_input(node.arg("self"), 0) and _last_dim(node.arg("dim"), ndim)
            and node.arg("half_to_float") is False and trace.output == _out(0)):
        return None
    return {"log": node.name == "_log_softmax"}


# ---- layer_norm over the last dim -----------------------------------------------------------

@matcher("layer_norm")
def match_layer_norm(trace: Trace) -> dict | None:
    if _ops(trace) != ("native_layer_norm.default",) or not _one_float_input(trace):
        return None
    node = trace.nodes[0]
    x = trace.inputs[0]
    if not (_is_input(node.arg("input"), 0) and node.arg("normalized_shape") == x.shape[-1:]
            and trace.output == _out(0)):
        return None
    affine = {}
    for role in ("weight", "bias"):
        ref = node.arg(role)
        if ref is None:
            affine[role] = None
            continue
        param = _parameter(trace, ref)
        if param is None or trace.params[ref.key].shape != x.shape[-1:]:
            return None
        affine[role] = param
    return {"eps": Lit(float(node.arg("eps")))} | affine


# ---- rms_norm and L2 normalisation over the last dim ----------------------------------------

@matcher("rms_norm")
def match_rms_norm(trace: Trace) -> dict | None:
    """x * rsqrt(mean(x²) + eps) [* w], as written out in PyTorch (F.rms_norm traces the
    same), and x / ‖x‖₂ (l2: the sum instead of the mean, no eps unless clamped)."""
    if not _one_float_input(trace):
        return None
    return _rms_pattern(trace) or _l2_pattern(trace)


def _rms_pattern(trace: Trace) -> dict | None:
    nodes, x = trace.nodes, trace.inputs[0]
    if len(nodes) not in (5, 6) or not _is_square_of_input(nodes[0]):
        return None
    mean, add, root, scale = nodes[1:5]
    if not (mean.op == "mean.dim" and mean.arg("self") == _out(0) and mean.arg("keepdim")
            and mean.arg("dtype") is None and _last_dim(mean.arg("dim"), len(x.shape))):
        return None
    if not (add.name == "add" and add.arg("self") == _out(1) and _is_number(add.arg("other"))
            and add.arg("alpha") == 1):
        return None
    form = _scaling(root, scale, _out(2), _out(3))
    if form is None or _uses(trace, _out(0)) != 1:
        return None
    params = {"kind": "rms", "eps": Lit(float(add.arg("other"))), "weight": None}
    return _with_weight(trace, params, nodes[5:], _out(4))


def _l2_pattern(trace: Trace) -> dict | None:
    nodes, x = trace.nodes, trace.inputs[0]
    if not nodes or nodes[0].op != "linalg_vector_norm.default":
        return None
    norm = nodes[0]
    if not (_is_input(norm.arg("self"), 0) and norm.arg("ord") == 2 and norm.arg("keepdim")
            and norm.arg("dtype") is None and _last_dim(norm.arg("dim"), len(x.shape))):
        return None
    rest, value, eps = list(nodes[1:]), _out(0), None
    if rest and rest[0].op == "clamp_min.default" and rest[0].arg("self") == value \
            and _is_number(rest[0].arg("min")):
        eps, value = Lit(float(rest[0].arg("min"))), _out(1)
        rest = rest[1:]
    if rest and rest[0].op == "expand.default" and rest[0].arg("self") == value:
        value = _out(len(nodes) - len(rest))
        rest = rest[1:]
    if len(rest) != 1 or rest[0].op != "div.Tensor" or not _is_input(rest[0].arg("self"), 0) \
            or rest[0].arg("other") != value or trace.output != _out(len(nodes) - 1):
        return None
    return {"kind": "l2", "eps": eps, "weight": None}


def _is_square_of_input(node: Node) -> bool:
    if node.op == "pow.Tensor_Scalar":
        return _is_input(node.arg("self"), 0) and node.arg("exponent") == 2
    return node.op == "mul.Tensor" and _is_input(node.arg("self"), 0) \
        and _is_input(node.arg("other"), 0)


def _scaling(root: Node, scale: Node, denom: Ref, root_out: Ref) -> str | None:
    """x * rsqrt(d) or x / sqrt(d), with x the input."""
    if root.op == "rsqrt.default" and root.arg("self") == denom and scale.op == "mul.Tensor":
        pair = {scale.arg("self"), scale.arg("other")}
        return "rsqrt" if pair == {Ref("input", 0), root_out} else None
    if root.op == "sqrt.default" and root.arg("self") == denom and scale.op == "div.Tensor":
        ok = _is_input(scale.arg("self"), 0) and scale.arg("other") == root_out
        return "sqrt" if ok else None
    return None


def _with_weight(trace: Trace, params: dict, tail: tuple, value: Ref) -> dict | None:
    x = trace.inputs[0]
    if not tail:
        return params if trace.output == value else None
    mul = tail[0]
    pair = (mul.arg("self"), mul.arg("other")) if mul.op == "mul.Tensor" else ()
    weight = next((r for r in pair if _is_param(r)), None)
    if weight is None or value not in pair or trace.params[weight.key].shape != x.shape[-1:]:
        return None
    if trace.output != _out(len(trace.nodes) - 1):
        return None
    return params | {"weight": _parameter(trace, weight)}


# ---- reductions over one dim or a run of adjacent dims --------------------------------------

_REDUCTIONS = {"sum.dim_IntList": "sum", "mean.dim": "mean", "amax.default": "max",
               "amin.default": "min", "max.dim": "max", "min.dim": "min",
               "argmax.default": "argmax", "argmin.default": "argmin",
               "linalg_vector_norm.default": "norm2"}


@matcher("reduce")
def match_reduce(trace: Trace) -> dict | None:
    if len(trace.nodes) != 1 or trace.nodes[0].op not in _REDUCTIONS \
            or not _one_float_input(trace) or trace.output != _out(0):
        return None
    node = trace.nodes[0]
    op = _REDUCTIONS[node.op]
    ndim = len(trace.inputs[0].shape)
    if not _is_input(node.arg("self"), 0) or dict(node.args).get("dtype") is not None:
        return None
    if op == "norm2" and node.arg("ord") != 2:
        return None
    dims = _dim_run(node.arg("dim"), ndim)
    if dims is None or (op in ("argmax", "argmin") and dims[0] != dims[1]):
        return None
    return {"op": op, "first": dims[0] - ndim, "last": dims[1] - ndim,
            "keepdim": bool(node.arg("keepdim"))}


def _dim_run(dim, ndim: int) -> tuple[int, int] | None:
    """Adjacent dims as (first, last), non-negative; None for none, all-by-default or gaps."""
    if dim is None or ndim == 0:
        return None
    dims = sorted({d % ndim for d in (dim if isinstance(dim, tuple) else (dim,))})
    if not dims or dims != list(range(dims[0], dims[-1] + 1)):
        return None
    return dims[0], dims[-1]


# ---- cumsum over the last dim ---------------------------------------------------------------

@matcher("cumsum")
def match_cumsum(trace: Trace) -> dict | None:
    if _ops(trace) != ("cumsum.default",) or not _one_float_input(trace):
        return None
    node = trace.nodes[0]
    ok = _is_input(node.arg("self"), 0) and node.arg("dtype") is None \
        and _last_dim(node.arg("dim"), len(trace.inputs[0].shape)) and trace.output == _out(0)
    return {} if ok else None


# ---- matmul: mm, bmm, and nn.Linear (addmm with a transposed weight) ------------------------

_TRANSPOSES = {"t.default", "permute.default", "transpose.int"}


@matcher("matmul")
def match_matmul(trace: Trace) -> dict | NoMatch | None:
    nodes = trace.nodes
    if not nodes or nodes[-1].op not in ("mm.default", "bmm.default", "addmm.default") \
            or trace.output != _out(len(nodes) - 1):
        return None
    last = nodes[-1]
    views = {_out(i): _transposed_operand(trace, n) for i, n in enumerate(nodes[:-1])}
    if any(v is None for v in views.values()):
        return None
    a = _operand(trace, last.arg("self" if last.name != "addmm" else "mat1"), views)
    b = _operand(trace, last.arg("mat2"), views)
    if a is None or b is None or len(views) != sum(o["transpose"] for o in (a, b)):
        return None
    params = {"a": a, "b": b, "bias": None, "batched": last.name == "bmm",
              "precision": _dot_precision(trace)}
    if last.name == "addmm":
        bias = _parameter(trace, last.arg("self"))
        if bias is None or len(bias["shape"]) != 1 or last.arg("beta") != 1 \
                or last.arg("alpha") != 1:
            return None
        params["bias"] = bias
    if trace.dtype == "bfloat16":
        return NoMatch("bf16 matmul: the Triton CPU interpreter computes bf16 tl.dot wrongly, "
                       "so the library's GEMM could not be verified without a GPU", "matmul")
    if trace.dtype not in FLOAT_DTYPES or any(m.dtype != trace.dtype for m in trace.inputs if m):
        return None
    return params


def _transposed_operand(trace: Trace, node: Node) -> Ref | None:
    """A 2-D transpose (x.T, x.t(), permute(1, 0), transpose(0, 1)) of an input or param."""
    if node.op not in _TRANSPOSES:
        return None
    src = node.arg("self")
    meta = trace.meta(src) if isinstance(src, Ref) else None
    if meta is None or len(meta.shape) != 2 or src.kind not in ("input", "param"):
        return None
    if node.op == "permute.default" and node.arg("dims") not in ((1, 0), (-1, -2)):
        return None
    if node.op == "transpose.int" and {node.arg("dim0") % 2, node.arg("dim1") % 2} != {0, 1}:
        return None
    return src


def _operand(trace: Trace, ref, views: dict) -> dict | None:
    transpose = ref in views
    src = views[ref] if transpose else ref
    if not isinstance(src, Ref):
        return None
    if src.kind == "input":
        return {"input": src.key, "param": None, "transpose": transpose}
    param = _parameter(trace, src)
    return {"input": None, "param": param, "transpose": transpose} if param else None


def _dot_precision(trace: Trace) -> str:
    """fp32 stays IEEE unless the task allows TF32; fp16 operands ignore the setting."""
    return "tf32" if trace.allow_tf32 else "ieee"


# ---- cross-entropy: log_softmax then nll_loss, mean or sum ----------------------------------

@matcher("cross_entropy")
def match_cross_entropy(trace: Trace) -> dict | None:
    if _ops(trace) != ("_log_softmax.default", "nll_loss_forward.default") \
            or len(trace.inputs) != 2 or trace.output != _out(1):
        return None
    lsm, nll = trace.nodes
    logits, target = trace.inputs
    if logits is None or target is None or len(logits.shape) != 2 \
            or logits.dtype != trace.dtype or target.dtype != "int64" \
            or target.shape != logits.shape[:1]:
        return None
    if not (_is_input(lsm.arg("self"), 0) and _last_dim(lsm.arg("dim"), 2)
            and lsm.arg("half_to_float") is False and nll.arg("self") == _out(0)
            and _is_input(nll.arg("target"), 1) and nll.arg("weight") is None
            and nll.arg("reduction") in (1, 2)):
        return None
    return {"reduction": "mean" if nll.arg("reduction") == 1 else "sum",
            "ignore_index": int(nll.arg("ignore_index"))}


# ---- mse_loss, mean or sum ------------------------------------------------------------------

@matcher("mse_loss")
def match_mse_loss(trace: Trace) -> dict | None:
    if _ops(trace) != ("mse_loss.default",) or trace.output != _out(0) \
            or len(trace.inputs) != 2 or trace.inputs[0] != trace.inputs[1] \
            or trace.inputs[0] is None or trace.inputs[0].dtype != trace.dtype:
        return None
    node = trace.nodes[0]
    if not (_is_input(node.arg("self"), 0) and _is_input(node.arg("target"), 1)
            and node.arg("reduction") in (1, 2)):
        return None
    return {"reduction": "mean" if node.arg("reduction") == 1 else "sum"}


# ---- embedding: rows of a parameter table gathered by integer ids --------------------------

@matcher("embedding")
def match_embedding(trace: Trace) -> dict | None:
    if _ops(trace) != ("embedding.default",) or trace.output != _out(0) \
            or len(trace.inputs) != 1 or trace.inputs[0] is None \
            or trace.inputs[0].dtype not in ("int64", "int32"):
        return None
    node = trace.nodes[0]
    table = _parameter(trace, node.arg("weight"))
    if table is None or len(table["shape"]) != 2 or not _is_input(node.arg("indices"), 0):
        return None
    return {"weight": table}


# ---- group_norm over NC* tensors ------------------------------------------------------------

@matcher("group_norm")
def match_group_norm(trace: Trace) -> dict | None:
    if _ops(trace) != ("native_group_norm.default",) or not _one_float_input(trace) \
            or trace.output != _out(0):
        return None
    node = trace.nodes[0]
    shape = trace.inputs[0].shape
    if len(shape) < 2 or not _is_input(node.arg("input"), 0):
        return None
    hxw = 1
    for d in shape[2:]:
        hxw *= d
    if (node.arg("N"), node.arg("C"), node.arg("HxW")) != (shape[0], shape[1], hxw) \
            or shape[1] % node.arg("group"):
        return None
    affine = {}
    for role in ("weight", "bias"):
        ref = node.arg(role)
        param = _parameter(trace, ref) if ref is not None else None
        if ref is not None and (param is None or trace.params[ref.key].shape != shape[1:2]):
            return None
        affine[role] = param
    return {"groups": Lit(int(node.arg("group"))), "eps": Lit(float(node.arg("eps")))} | affine


# ---- KL divergence of log_softmax(logits) from a target distribution ------------------------

_KL_OPS = ("_log_softmax.default", "mul.Tensor", "xlogy.Tensor", "sub.Tensor", "sum.default")


@matcher("kl_div")
def match_kl_div(trace: Trace) -> dict | None:
    """F.kl_div(F.log_softmax(x, -1), target, reduction="batchmean" | "sum") on 2-D inputs, as
    torch traces it: target·log(target) − target·log_softmax(x), summed, over the batch."""
    ops = _ops(trace)
    if ops[:5] != _KL_OPS or len(ops) not in (5, 6) or trace.output != _out(len(ops) - 1) \
            or len(trace.inputs) != 2 or trace.inputs[0] is None \
            or trace.inputs[0] != trace.inputs[1] or len(trace.inputs[0].shape) != 2 \
            or trace.inputs[0].dtype != trace.dtype:
        return None
    lsm, mul, xlogy, sub, total = trace.nodes[:5]
    target = Ref("input", 1)
    if not (_is_input(lsm.arg("self"), 0) and _last_dim(lsm.arg("dim"), 2)
            and lsm.arg("half_to_float") is False
            and {mul.arg("self"), mul.arg("other")} == {target, _out(0)}
            and xlogy.arg("self") == target and xlogy.arg("other") == target
            and sub.arg("self") == _out(2) and sub.arg("other") == _out(1)
            and sub.arg("alpha") == 1 and total.arg("self") == _out(3)
            and total.arg("dtype") is None):
        return None
    if len(ops) == 5:
        return {"reduction": "sum"}
    div = trace.nodes[5]
    batchmean = div.op == "div.Tensor" and div.arg("self") == _out(4) \
        and div.arg("other") == trace.inputs[0].shape[0]
    return {"reduction": "batchmean"} if batchmean else None


# ---- 2-D max and average pooling over NCHW tensors -------------------------------------------

_POOL_OPS = {"max_pool2d_with_indices.default": "max", "avg_pool2d.default": "avg"}


@matcher("pool2d")
def match_pool2d(trace: Trace) -> dict | None:
    """nn.MaxPool2d / nn.AvgPool2d (and F.*) on a 4-D input, without ceil_mode; max returns
    the values only (its indices are unused)."""
    ops = _ops(trace)
    if len(ops) != 1 or ops[0] not in _POOL_OPS or trace.output != _out(0) \
            or not _one_float_input(trace) or len(trace.inputs[0].shape) != 4:
        return None
    node, kind = trace.nodes[0], _POOL_OPS[ops[0]]
    args = dict(node.args)  # avg_pool2d has no dilation, max_pool2d no divisor
    kernel = _pair(args["kernel_size"])
    stride = _pair(args.get("stride")) or kernel
    padding, dilation = _pair(args.get("padding", 0)), _pair(args.get("dilation") or 1)
    divisor = args.get("divisor_override")
    if not (_is_input(node.arg("self"), 0) and kernel and padding and dilation) \
            or node.arg("ceil_mode") or (divisor is not None and not _is_number(divisor)):
        return None
    return {"kind": kind, "kernel": kernel, "stride": stride, "padding": padding,
            "dilation": dilation, "count_include_pad": kind == "avg"
            and args.get("count_include_pad") is not False, "divisor": divisor}


def _pair(value) -> tuple[int, int] | None:
    """(a, b) from an int or a one- or two-element sequence of ints; None if it is neither."""
    values = (value,) if isinstance(value, int) else tuple(value or ())
    if len(values) == 1:
        values = values * 2
    ok = len(values) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                  for v in values)
    return values if ok else None


# ---- attention: F.scaled_dot_product_attention, as its math decomposition traces -----------

_VIEWS = ("expand.default", "view.default", "_unsafe_view.default")


@matcher("attention")
def match_attention(trace: Trace) -> dict | NoMatch | None:
    """softmax(q·kᵀ/√d [+ causal mask])·v over (B, H, S, D) inputs q, k, v of one shape, with
    the default scale, no attn_mask and no dropout. The trace is followed from the output
    back to the inputs; every op must be on that path (a dead dtype cast aside)."""
    if len(trace.inputs) != 3 or trace.inputs[0] is None or len(trace.inputs[0].shape) != 4 \
            or any(m != trace.inputs[0] for m in trace.inputs) \
            or trace.inputs[0].dtype != trace.dtype or "bmm.default" not in _ops(trace):
        return None
    seen: set[int] = set()
    found = _attention_path(trace, trace.output, seen)
    dead = [n for i, n in enumerate(trace.nodes) if i not in seen]
    if found is None or any(n.op != "_to_copy.default" for n in dead):
        return None
    if trace.dtype == "bfloat16":
        return NoMatch("bf16 attention: the Triton CPU interpreter computes bf16 tl.dot "
                       "wrongly, so the library's kernel could not be verified without a GPU",
                       "attention")
    return found | {"precision": _dot_precision(trace)}


def _attention_path(trace: Trace, out, seen: set[int]) -> dict | None:
    walk = _Walk(trace, seen)
    node = walk.node(out)
    if node is not None and node.op == "_to_copy.default":  # fp16: back from the fp32 math
        node = walk.node(node.arg("self"))
    pv = walk.node(walk.source(node.arg("self"))) if node is not None \
        and node.op == "_unsafe_view.default" else None
    if pv is None or pv.op != "bmm.default":
        return None
    soft = walk.node(walk.source(pv.arg("self")))
    if soft is None or soft.op not in ("_safe_softmax.default", "_softmax.default") \
            or soft.arg("dim") not in (-1, 3) or not walk.is_input(pv.arg("mat2"), 2):
        return None
    scores, causal = walk.node(soft.arg("self")), False
    if scores is not None and scores.op == "add.Tensor":
        causal = _causal_mask(walk, scores.arg("other"))
        if not causal or scores.arg("alpha") != 1:
            return None
        scores = walk.node(scores.arg("self"))
    qk = walk.node(walk.source(scores.arg("self"))) if scores is not None \
        and scores.op == "_unsafe_view.default" else None
    if qk is None or qk.op != "bmm.default":
        return None
    return {"causal": causal} if _scaled_qk(walk, qk) else None


def _scaled_qk(walk: _Walk, qk: Node) -> bool:
    """q·s and (kᵀ)·s with s² = 1/√D: sdpa's default scale, split between the two."""
    q_mul, k_mul = walk.node(walk.source(qk.arg("self"))), walk.node(walk.source(qk.arg("mat2")))
    if q_mul is None or k_mul is None or {q_mul.op, k_mul.op} != {"mul.Scalar"}:
        return False
    scale, head_dim = q_mul.arg("other"), walk.trace.inputs[0].shape[3]
    k_t = walk.node(k_mul.arg("self"))
    return _is_number(scale) and k_mul.arg("other") == scale \
        and abs(scale * scale * head_dim ** 0.5 - 1) < 1e-6 \
        and walk.is_input(q_mul.arg("self"), 0) and k_t is not None \
        and k_t.op == "transpose.int" and {k_t.arg("dim0") % 4, k_t.arg("dim1") % 4} == {2, 3} \
        and walk.is_input(k_t.arg("self"), 1)


def _causal_mask(walk: _Walk, ref) -> bool:
    """where(tril(ones(S, S)), 0, -inf): is_causal=True's additive mask."""
    where = walk.node(ref)
    if where is None or where.op != "where.self":
        return False
    tril, zero, minus = (walk.node(where.arg(k)) for k in ("condition", "self", "other"))
    ones = walk.node(tril.arg("self")) if tril is not None and tril.op == "tril.default" \
        else None
    seq = walk.trace.inputs[0].shape[2]
    return ones is not None and ones.op == "ones.default" and ones.arg("size") == (seq, seq) \
        and tril.arg("diagonal") == 0 and zero is not None and minus is not None \
        and zero.op == minus.op == "scalar_tensor.default" and zero.arg("s") == 0 \
        and minus.arg("s") == float("-inf")


class _Walk:
    """Steps from a Ref to the node that made it, recording every node it passes."""

    def __init__(self, trace: Trace, seen: set[int]):
        self.trace, self.seen = trace, seen

    def node(self, ref) -> Node | None:
        if not (isinstance(ref, Ref) and ref.kind == "node"):
            return None
        self.seen.add(ref.key[0])
        return self.trace.nodes[ref.key[0]]

    def source(self, ref):
        """Back through expand and view (reshapes of one shape; no broadcast: the inputs
        share one shape) to what they view."""
        while isinstance(ref, Ref) and ref.kind == "node" \
                and self.trace.nodes[ref.key[0]].op in _VIEWS:
            ref = self.node(ref).arg("self")
        return ref

    def is_input(self, ref, index: int) -> bool:
        """Input `index`, maybe viewed, maybe cast to fp32 (the math path of fp16 inputs)."""
        ref = self.source(ref)
        node = self.node(ref)
        if node is not None and node.op == "_to_copy.default":
            ref = node.arg("self")
        return _is_input(ref, index)
