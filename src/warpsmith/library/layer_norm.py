"""LayerNorm over the last dim, weight and bias optional. A row up to ROW_MAX wide is held in
registers (exact two-pass statistics, one read of x); a wider one takes shifted sums in one
pass and normalises in a second."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Lit, Params, _is_input, _one_float_input, _ops, _out, _parameter
from .render import constructor, fill, header, signature
from .trace import Trace

KERNELS = '''
@triton.jit
def layer_norm_row_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_x, stride_o, eps,
                          HAS_WEIGHT: tl.constexpr, HAS_BIAS: tl.constexpr,
                          BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    y = d * (1.0 / tl.sqrt(var + eps))
    if HAS_WEIGHT:
        y = y * tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    if HAS_BIAS:
        y = y + tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * stride_o + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layer_norm_loop_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_x, stride_o, eps,
                           HAS_WEIGHT: tl.constexpr, HAS_BIAS: tl.constexpr,
                           BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    o_row = out_ptr + row * stride_o
    cols = tl.arange(0, BLOCK)
    # Sums of x - pivot (the row's first element) keep the variance free of cancellation.
    pivot = tl.load(x_row).to(tl.float32)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        d = tl.where(mask, tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32) - pivot, 0.0)
        acc += d
        acc2 += d * d
    mean_d = tl.sum(acc, axis=0) / n_cols
    var = tl.maximum(tl.sum(acc2, axis=0) / n_cols - mean_d * mean_d, 0.0)
    mean = pivot + mean_d
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd
        if HAS_WEIGHT:
            y = y * tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        if HAS_BIAS:
            y = y + tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
        tl.store(o_row + c, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
$init
    def forward($signature):
        x2 = $x.contiguous().reshape(-1, $x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        w = $weight
        b = $bias
        block = triton.next_power_of_2(n_cols)
        if block <= ROW_MAX:
            warps = min(ROW_WARPS_MAX, max(4, block // ROW_ELEMS_PER_WARP))
            layer_norm_row_kernel[(n_rows,)](x2, w, b, out, n_cols, x2.stride(0), out.stride(0),
                                             self.eps, HAS_WEIGHT=$has_weight,
                                             HAS_BIAS=$has_bias, BLOCK=block, num_warps=warps)
        else:
            layer_norm_loop_kernel[(n_rows,)](x2, w, b, out, n_cols, x2.stride(0),
                                              out.stride(0), self.eps, HAS_WEIGHT=$has_weight,
                                              HAS_BIAS=$has_bias, BLOCK=BLOCK,
                                              num_warps=LOOP_WARPS)
        return out.view($x.shape)
'''


@dataclass(frozen=True, kw_only=True)
class LayerNormParams(Params):
    eps: Lit | dict
    weight: dict | None  # a parameter (match._parameter), None without affine
    bias: dict | None


class LayerNorm:
    name = "layer_norm"
    reads = "trace"
    knobs = {"ROW_MAX": 8192, "ROW_WARPS_MAX": 16, "ROW_ELEMS_PER_WARP": 512,
             "BLOCK": 4096, "LOOP_WARPS": 8}

    def match(self, trace: Trace, ctx) -> LayerNormParams | None:
        return match_layer_norm(trace)

    def render(self, params: LayerNormParams, tune: dict[str, int]) -> str:
        x = params.args[0]
        weight, bias = params.weight, params.bias
        parameters = [p for p in (weight, bias) if p is not None]
        return header("layer_norm", tune) + fill(
            KERNELS, init=constructor(parameters, {"eps": params.eps}),
            signature=signature(params.args), x=x,
            # An absent weight or bias passes x2 as a placeholder pointer it never reads.
            weight=f"self.{weight['name']}.contiguous()" if weight else "x2",
            bias=f"self.{bias['name']}.contiguous()" if bias else "x2",
            has_weight=str(weight is not None), has_bias=str(bias is not None))


# ---- the matcher: which traces this family implements --------------------

def match_layer_norm(trace: Trace) -> LayerNormParams | None:
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
    return LayerNormParams(eps=Lit(float(node.arg("eps"))), **affine)


