"""Row scaling over the last dim: RMSNorm, x * rsqrt(mean(x²) + eps) [* w], and L2
normalisation, x / max(‖x‖₂, eps). Same structure as layer_norm: whole rows in registers up
to ROW_MAX, two passes beyond."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .match import (
    Lit,
    Params,
    _is_input,
    _is_number,
    _is_param,
    _last_dim,
    _one_float_input,
    _out,
    _parameter,
    _uses,
)
from .render import constructor, fill, header, signature
from .trace import Node, Ref, Trace

KERNELS = '''
@triton.jit
def row_scale(ss, n_cols, eps, MEAN: tl.constexpr):
    # MEAN: RMSNorm's 1 / sqrt(mean + eps); else L2's 1 / max(norm, eps).
    if MEAN:
        r = 1.0 / tl.sqrt(ss / n_cols + eps)
    else:
        r = 1.0 / tl.maximum(tl.sqrt(ss), eps)
    return r


@triton.jit
def rms_norm_row_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride_x, stride_o, eps,
                        MEAN: tl.constexpr, HAS_WEIGHT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * row_scale(tl.sum(x * x, axis=0), n_cols, eps, MEAN)
    if HAS_WEIGHT:
        y = y * tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * stride_o + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rms_norm_loop_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride_x, stride_o, eps,
                         MEAN: tl.constexpr, HAS_WEIGHT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    o_row = out_ptr + row * stride_o
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    r = row_scale(tl.sum(acc, axis=0), n_cols, eps, MEAN)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        y = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32) * r
        if HAS_WEIGHT:
            y = y * tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        tl.store(o_row + c, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
$init
    def forward($signature):
        x2 = $x.contiguous().reshape(-1, $x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        w = $weight
        block = triton.next_power_of_2(n_cols)
        if block <= ROW_MAX:
            warps = min(ROW_WARPS_MAX, max(4, block // ROW_ELEMS_PER_WARP))
            rms_norm_row_kernel[(n_rows,)](x2, w, out, n_cols, x2.stride(0), out.stride(0),
                                           self.eps, MEAN=$mean, HAS_WEIGHT=$has_weight,
                                           BLOCK=block, num_warps=warps)
        else:
            rms_norm_loop_kernel[(n_rows,)](x2, w, out, n_cols, x2.stride(0), out.stride(0),
                                            self.eps, MEAN=$mean, HAS_WEIGHT=$has_weight,
                                            BLOCK=BLOCK, num_warps=LOOP_WARPS)
        return out.view($x.shape)
'''


@dataclass(frozen=True, kw_only=True)
class RmsNormParams(Params):
    kind: str  # "rms" (the mean of squares) or "l2" (their sum)
    eps: Lit | dict | None  # l2 without a clamp has none
    weight: dict | None  # a parameter (match._parameter)


class RmsNorm:
    name = "rms_norm"
    reads = "trace"
    knobs = {"ROW_MAX": 8192, "ROW_WARPS_MAX": 16, "ROW_ELEMS_PER_WARP": 512,
             "BLOCK": 4096, "LOOP_WARPS": 8}

    def match(self, trace: Trace, ctx) -> RmsNormParams | None:
        return match_rms_norm(trace)

    def render(self, params: RmsNormParams, tune: dict[str, int]) -> str:
        weight = params.weight
        return header("rms_norm", tune) + fill(
            KERNELS, init=constructor([weight] if weight else [], {"eps": params.eps}),
            signature=signature(params.args), x=params.args[0],
            weight=f"self.{weight['name']}.contiguous()" if weight else "x2",
            mean=str(params.kind == "rms"), has_weight=str(weight is not None))


# ---- the matcher: which traces this family implements --------------------

def match_rms_norm(trace: Trace) -> RmsNormParams | None:
    """x * rsqrt(mean(x²) + eps) [* w], as written out in PyTorch (F.rms_norm traces the
    same), and x / ‖x‖₂ (l2: the sum instead of the mean, no eps unless clamped)."""
    if not _one_float_input(trace):
        return None
    return _rms_pattern(trace) or _l2_pattern(trace)


def _rms_pattern(trace: Trace) -> RmsNormParams | None:
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
    params = RmsNormParams(kind="rms", eps=Lit(float(add.arg("other"))), weight=None)
    return _with_weight(trace, params, nodes[5:], _out(4))


def _l2_pattern(trace: Trace) -> RmsNormParams | None:
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
    return RmsNormParams(kind="l2", eps=eps, weight=None)


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


def _with_weight(trace: Trace, params: RmsNormParams, tail: tuple,
                 value: Ref) -> RmsNormParams | None:
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
    return replace(params, weight=_parameter(trace, weight))


