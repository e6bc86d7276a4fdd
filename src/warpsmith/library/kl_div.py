"""KL divergence of log_softmax(logits) from a target distribution, batchmean or sum, in one
pass over both inputs: per row, Σ t·log t − Σ t·x + logsumexp(x)·Σ t (the log-softmax is never
written); a second one-program kernel adds the rows in a fixed order."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Params, _is_input, _last_dim, _ops, _out
from .render import constructor, fill, header, signature
from .trace import Ref, Trace

KERNELS = '''
@triton.jit
def kl_div_rows_kernel(x_ptr, t_ptr, rows_ptr, n_cols, stride_x, stride_t,
                       BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    s = 0.0
    acc = tl.zeros([BLOCK], dtype=tl.float32)  # t·log t − t·x, per lane
    mass = tl.zeros([BLOCK], dtype=tl.float32)  # Σ t, per lane
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        x = tl.load(x_ptr + row * stride_x + c, mask=mask, other=-float("inf")).to(tl.float32)
        t = tl.load(t_ptr + row * stride_t + c, mask=mask, other=0.0).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
        # xlogy(t, t) is 0 where t == 0; masked lanes (x = -inf, t = 0) add nothing.
        t_log_t = tl.where(t == 0.0, 0.0, t * tl.log(t))
        acc += tl.where(mask, t_log_t - t * x, 0.0)
        mass += t
    lse = m + tl.log(s)
    tl.store(rows_ptr + row, tl.sum(acc, axis=0) + lse * tl.sum(mass, axis=0))


@triton.jit
def kl_div_total_kernel(rows_ptr, out_ptr, n_rows, divisor, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_rows, BLOCK):
        r = start + offs
        acc += tl.load(rows_ptr + r, mask=r < n_rows, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / divisor).to(out_ptr.dtype.element_ty))


class ModelNew(nn.Module):
$init
    def forward($signature):
        x = $logits.contiguous()
        t = $target.contiguous()
        n_rows, n_cols = x.shape
        rows = torch.empty((n_rows,), dtype=torch.float32, device=x.device)
        out = torch.empty((), dtype=x.dtype, device=x.device)
        block = min(BLOCK, triton.next_power_of_2(n_cols))
        kl_div_rows_kernel[(n_rows,)](x, t, rows, n_cols, x.stride(0), t.stride(0),
                                      BLOCK=block, num_warps=NUM_WARPS)
        block_sum = min(SUM_BLOCK, triton.next_power_of_2(n_rows))
        kl_div_total_kernel[(1,)](rows, out, n_rows, $divisor, BLOCK=block_sum,
                                  num_warps=SUM_WARPS)
        return out
'''


@dataclass(frozen=True, kw_only=True)
class KlDivParams(Params):
    reduction: str  # "batchmean" or "sum"


class KlDiv:
    name = "kl_div"
    reads = "trace"
    knobs = {"BLOCK": 4096, "NUM_WARPS": 8, "SUM_BLOCK": 1024, "SUM_WARPS": 4}

    def match(self, trace: Trace, ctx) -> KlDivParams | None:
        return match_kl_div(trace)

    def render(self, params: KlDivParams, tune: dict[str, int]) -> str:
        logits, target = params.args
        return header("kl_div", tune) + fill(
            KERNELS, init=constructor([], {}), signature=signature(params.args),
            logits=logits, target=target,
            divisor="float(n_rows)" if params.reduction == "batchmean" else "1.0")


# ---- the matcher: which traces this family implements --------------------

_KL_OPS = ("_log_softmax.default", "mul.Tensor", "xlogy.Tensor", "sub.Tensor", "sum.default")


def match_kl_div(trace: Trace) -> KlDivParams | None:
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
        return KlDivParams(reduction="sum")
    div = trace.nodes[5]
    batchmean = div.op == "div.Tensor" and div.arg("self") == _out(4) \
        and div.arg("other") == trace.inputs[0].shape[0]
    return KlDivParams(reduction="batchmean") if batchmean else None


