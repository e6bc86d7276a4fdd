"""Cross-entropy of logits against class ids, mean or sum: one program per row finds the
row's logsumexp in a single online pass (never writing log-probabilities) and gathers the
target's logit; a second one-program kernel adds the per-row losses in a fixed order, so the
result is deterministic."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Params, _is_input, _last_dim, _ops, _out
from .render import constructor, fill, header, signature
from .trace import Trace

KERNELS = '''
@triton.jit
def cross_entropy_rows_kernel(x_ptr, t_ptr, loss_ptr, valid_ptr, n_cols, stride_x,
                              IGNORE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    target = tl.load(t_ptr + row)
    valid = target != IGNORE
    picked = tl.load(x_row + target, mask=valid, other=0.0).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(valid, m + tl.log(s) - picked, 0.0))
    tl.store(valid_ptr + row, tl.where(valid, 1.0, 0.0))


@triton.jit
def cross_entropy_total_kernel(loss_ptr, valid_ptr, out_ptr, n_rows, MEAN: tl.constexpr,
                               BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    total = tl.zeros([BLOCK], dtype=tl.float32)
    count = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_rows, BLOCK):
        r = start + offs
        total += tl.load(loss_ptr + r, mask=r < n_rows, other=0.0)
        count += tl.load(valid_ptr + r, mask=r < n_rows, other=0.0)
    result = tl.sum(total, axis=0)
    if MEAN:
        result = result / tl.sum(count, axis=0)
    tl.store(out_ptr, result.to(out_ptr.dtype.element_ty))


class ModelNew(nn.Module):
$init
    def forward($signature):
        x = $logits.contiguous()
        t = $targets.contiguous()
        n_rows, n_cols = x.shape
        losses = torch.empty((n_rows,), dtype=torch.float32, device=x.device)
        valid = torch.empty((n_rows,), dtype=torch.float32, device=x.device)
        out = torch.empty((), dtype=x.dtype, device=x.device)
        block = min(BLOCK, triton.next_power_of_2(n_cols))
        cross_entropy_rows_kernel[(n_rows,)](x, t, losses, valid, n_cols, x.stride(0),
                                             IGNORE=$ignore, BLOCK=block, num_warps=NUM_WARPS)
        block_sum = min(SUM_BLOCK, triton.next_power_of_2(n_rows))
        cross_entropy_total_kernel[(1,)](losses, valid, out, n_rows, MEAN=$mean,
                                         BLOCK=block_sum, num_warps=SUM_WARPS)
        return out
'''


@dataclass(frozen=True, kw_only=True)
class CrossEntropyParams(Params):
    reduction: str  # "mean" or "sum"
    ignore_index: int


class CrossEntropy:
    name = "cross_entropy"
    reads = "trace"
    knobs = {"BLOCK": 4096, "NUM_WARPS": 8, "SUM_BLOCK": 1024, "SUM_WARPS": 4}

    def match(self, trace: Trace, ctx) -> CrossEntropyParams | None:
        return match_cross_entropy(trace)

    def render(self, params: CrossEntropyParams, tune: dict[str, int]) -> str:
        logits, targets = params.args
        return header("cross_entropy", tune) + fill(
            KERNELS, init=constructor([], {}), signature=signature(params.args),
            logits=logits, targets=targets, ignore=params.ignore_index,
            mean=str(params.reduction == "mean"))


# ---- the matcher: which traces this family implements --------------------

def match_cross_entropy(trace: Trace) -> CrossEntropyParams | None:
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
    return CrossEntropyParams(reduction="mean" if nll.arg("reduction") == 1 else "sum",
                              ignore_index=int(nll.arg("ignore_index")))


