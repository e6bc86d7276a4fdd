"""MSE loss, mean or sum: each program adds its block's squared differences into a partial
sum; one more program adds the partials in a fixed order (deterministic, no atomics)."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Params, _is_input, _ops, _out
from .render import constructor, fill, header, signature
from .trace import Trace

KERNELS = '''
@triton.jit
def mse_partial_kernel(a_ptr, b_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    d = a - b
    tl.store(partial_ptr + pid, tl.sum(d * d, axis=0))


@triton.jit
def mse_total_kernel(partial_ptr, out_ptr, n_partials, divisor, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_partials, BLOCK):
        p = start + offs
        acc += tl.load(partial_ptr + p, mask=p < n_partials, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / divisor).to(out_ptr.dtype.element_ty))


class ModelNew(nn.Module):
$init
    def forward($signature):
        a = $a.contiguous()
        b = $b.contiguous()
        n = a.numel()
        blocks = triton.cdiv(n, BLOCK)
        partials = torch.empty((blocks,), dtype=torch.float32, device=a.device)
        out = torch.empty((), dtype=a.dtype, device=a.device)
        mse_partial_kernel[(blocks,)](a, b, partials, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
        block_sum = min(SUM_BLOCK, triton.next_power_of_2(blocks))
        mse_total_kernel[(1,)](partials, out, blocks, $divisor, BLOCK=block_sum,
                               num_warps=SUM_WARPS)
        return out
'''


@dataclass(frozen=True, kw_only=True)
class MseLossParams(Params):
    reduction: str  # "mean" or "sum"


class MseLoss:
    name = "mse_loss"
    reads = "trace"
    knobs = {"BLOCK": 4096, "NUM_WARPS": 8, "SUM_BLOCK": 1024, "SUM_WARPS": 4}

    def match(self, trace: Trace, ctx) -> MseLossParams | None:
        return match_mse_loss(trace)

    def render(self, params: MseLossParams, tune: dict[str, int]) -> str:
        a, b = params.args
        return header("mse_loss", tune) + fill(
            KERNELS, init=constructor([], {}), signature=signature(params.args), a=a, b=b,
            divisor="float(n)" if params.reduction == "mean" else "1.0")


# ---- the matcher: which traces this family implements --------------------

def match_mse_loss(trace: Trace) -> MseLossParams | None:
    if _ops(trace) != ("mse_loss.default",) or trace.output != _out(0) \
            or len(trace.inputs) != 2 or trace.inputs[0] != trace.inputs[1] \
            or trace.inputs[0] is None or trace.inputs[0].dtype != trace.dtype:
        return None
    node = trace.nodes[0]
    if not (_is_input(node.arg("self"), 0) and _is_input(node.arg("target"), 1)
            and node.arg("reduction") in (1, 2)):
        return None
    return MseLossParams(reduction="mean" if node.arg("reduction") == 1 else "sum")


