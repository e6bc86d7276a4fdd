"""Inclusive cumsum over the last dim: one program per row scans BLOCK-wide chunks with
tl.cumsum and carries the running total between them, in fp32."""

from __future__ import annotations

from .registry import register
from .render import constructor, fill, header, signature

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


@register("cumsum")
class Cumsum:
    defaults = {"BLOCK": 2048, "NUM_WARPS": 8}

    def render(self, params: dict, tune: dict[str, int]) -> str:
        return header("cumsum", tune) + fill(
            KERNELS, init=constructor([], {}), signature=signature(params["args"]),
            x=params["args"][0])
