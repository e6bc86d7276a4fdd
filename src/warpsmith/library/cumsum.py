"""Inclusive cumsum over the last dim: one program per row scans BLOCK-wide chunks with
tl.cumsum and carries the running total between them, in fp32."""

from __future__ import annotations

from .match import Params, _is_input, _last_dim, _one_float_input, _ops, _out
from .render import constructor, fill, header, signature
from .trace import Trace

KERNELS = '''
@triton.jit
def cumsum_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_o, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    o_row = out_ptr + row * stride_o
    cols = tl.arange(0, BLOCK)
    carry = 0.0
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
        tl.store(o_row + c, (tl.cumsum(x, axis=0) + carry).to(out_ptr.dtype.element_ty),
                 mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
$init
    def forward($signature):
        x2 = $x.contiguous().reshape(-1, $x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        block = min(BLOCK, triton.next_power_of_2(n_cols))
        cumsum_kernel[(n_rows,)](x2, out, n_cols, x2.stride(0), out.stride(0), BLOCK=block,
                                 num_warps=NUM_WARPS)
        return out.view($x.shape)
'''


class Cumsum:
    name = "cumsum"
    reads = "trace"
    knobs = {"BLOCK": 2048, "NUM_WARPS": 8}

    def match(self, trace: Trace, ctx) -> Params | None:
        return match_cumsum(trace)

    def render(self, params: Params, tune: dict[str, int]) -> str:
        return header("cumsum", tune) + fill(
            KERNELS, init=constructor([], {}), signature=signature(params.args),
            x=params.args[0])


# ---- the matcher: which traces this family implements --------------------

def match_cumsum(trace: Trace) -> Params | None:
    if _ops(trace) != ("cumsum.default",) or not _one_float_input(trace):
        return None
    node = trace.nodes[0]
    ok = _is_input(node.arg("self"), 0) and node.arg("dtype") is None \
        and _last_dim(node.arg("dim"), len(trace.inputs[0].shape)) and trace.output == _out(0)
    return Params() if ok else None


