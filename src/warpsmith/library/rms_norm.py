"""Row scaling over the last dim: RMSNorm, x * rsqrt(mean(x²) + eps) [* w], and L2
normalisation, x / max(‖x‖₂, eps). Same structure as layer_norm: whole rows in registers up
to ROW_MAX, two passes beyond."""

from __future__ import annotations

from .registry import register
from .render import constructor, fill, header, signature

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


@register("rms_norm")
class RmsNorm:
    defaults = {"ROW_MAX": 8192, "ROW_WARPS_MAX": 16, "ROW_ELEMS_PER_WARP": 512,
                "BLOCK": 4096, "LOOP_WARPS": 8}

    def render(self, params: dict, tune: dict[str, int]) -> str:
        weight = params["weight"]
        return header("rms_norm", tune) + fill(
            KERNELS, init=constructor([weight] if weight else [], {"eps": params["eps"]}),
            signature=signature(params["args"]), x=params["args"][0],
            weight=f"self.{weight['name']}.contiguous()" if weight else "x2",
            mean=str(params["kind"] == "rms"), has_weight=str(weight is not None))
