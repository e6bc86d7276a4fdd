"""Softmax and log-softmax over the last dim. A row up to ROW_MAX wide is held in registers
and read once; a wider one is read twice (online max and sum, then normalise)."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Params, _is_input, _last_dim, _one_float_input, _ops, _out
from .render import constructor, fill, header, signature
from .trace import Trace

# The last line of each kernel: y from the shifted row z = x - max and the sum s of exp(z).
FINISH = {False: "tl.exp(z) / s", True: "z - tl.log(s)"}

KERNELS = '''
@triton.jit
def softmax_row_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_o, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=-float("inf")).to(tl.float32)
    z = x - tl.max(x, axis=0)
    s = tl.sum(tl.exp(z), axis=0)
    y = $finish
    tl.store(out_ptr + row * stride_o + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_loop_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_o, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    o_row = out_ptr + row * stride_o
    cols = tl.arange(0, BLOCK)
    # Pass 1: running max m and running sum s of exp(x - m), rescaled when m grows.
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    # Pass 2: normalise.
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        z = tl.load(x_row + c, mask=mask, other=-float("inf")).to(tl.float32) - m
        y = $finish
        tl.store(o_row + c, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
$init
    def forward($signature):
        x2 = $x.contiguous().reshape(-1, $x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        block = triton.next_power_of_2(n_cols)
        if block <= ROW_MAX:
            warps = min(ROW_WARPS_MAX, max(4, block // ROW_ELEMS_PER_WARP))
            softmax_row_kernel[(n_rows,)](x2, out, n_cols, x2.stride(0), out.stride(0),
                                          BLOCK=block, num_warps=warps)
        else:
            softmax_loop_kernel[(n_rows,)](x2, out, n_cols, x2.stride(0), out.stride(0),
                                           BLOCK=BLOCK, num_warps=LOOP_WARPS)
        return out.view($x.shape)
'''


@dataclass(frozen=True, kw_only=True)
class SoftmaxParams(Params):
    log: bool  # log_softmax


class Softmax:
    name = "softmax"
    reads = "trace"
    knobs = {"ROW_MAX": 32768, "ROW_WARPS_MAX": 16, "ROW_ELEMS_PER_WARP": 512,
             "BLOCK": 4096, "LOOP_WARPS": 8}

    def match(self, trace: Trace, ctx) -> SoftmaxParams | None:
        return match_softmax(trace)

    def render(self, params: SoftmaxParams, tune: dict[str, int]) -> str:
        x = params.args[0]
        return header("softmax", tune) + fill(
            KERNELS, finish=FINISH[params.log], init=constructor([], {}),
            signature=signature(params.args), x=x)


# ---- the matcher: which traces this family implements --------------------

def match_softmax(trace: Trace) -> SoftmaxParams | None:
    if _ops(trace) not in (("_softmax.default",), ("_log_softmax.default",)):
        return None
    node = trace.nodes[0]
    ndim = len(trace.inputs[0].shape) if _one_float_input(trace) else 0
    if not (ndim and _is_input(node.arg("self"), 0) and _last_dim(node.arg("dim"), ndim)
            and node.arg("half_to_float") is False and trace.output == _out(0)):
        return None
    return SoftmaxParams(log=node.name == "_log_softmax")


