"""Matmul: mm, bmm and nn.Linear (x @ Wᵀ + b) as one tiled kernel with grouped tile order
(GROUP_M row tiles share their B columns in L2), fp32 accumulation, strides for any
transposed operand, and the bias fused into the epilogue. Strict fp32 tasks use IEEE dot."""

from __future__ import annotations

from .registry import register
from .render import constructor, dot_precision, fill, header, signature

KERNEL = '''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                  stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                  stride_cb, stride_cm, stride_cn, HAS_BIAS: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + batch * stride_ab + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] + k < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc$precision)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if HAS_BIAS:
        acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    c_ptrs = c_ptr + batch * stride_cb + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def tile(size, cap):
    # tl.dot needs every tile dim >= 16; small problems get the smallest tile that covers them.
    return max(16, min(cap, triton.next_power_of_2(size)))


class ModelNew(nn.Module):
$init
    def forward($signature):
        a = $a
        b = $b
        M, K = a.shape[-2], a.shape[-1]
        N = b.shape[-1]
        batch = $batch
        out = torch.empty($out_shape, dtype=a.dtype, device=a.device)
        bias = $bias
        bm, bn, bk = tile(M, BLOCK_M), tile(N, BLOCK_N), tile(K, BLOCK_K)
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn), batch)
        matmul_kernel[grid](a, b, bias, out, M, N, K,
                            $a_batch_stride, a.stride(-2), a.stride(-1),
                            $b_batch_stride, b.stride(-2), b.stride(-1),
                            $c_batch_stride, out.stride(-2), out.stride(-1),
                            HAS_BIAS=$has_bias, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                            GROUP_M=GROUP_M, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
        return out
'''


@register("matmul")
class Matmul:
    defaults = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8, "NUM_WARPS": 8,
                "NUM_STAGES": 3}

    def render(self, params: dict, tune: dict[str, int]) -> str:
        args, bias, batched = params["args"], params["bias"], params["batched"]
        parameters = [o["param"] for o in (params["a"], params["b"]) if o["param"]]
        parameters += [bias] if bias else []
        return header("matmul", tune) + fill(
            KERNEL, precision=dot_precision(params), init=constructor(parameters, {}),
            signature=signature(args), a=_operand(params["a"], args),
            b=_operand(params["b"], args), batch="a.shape[0]" if batched else "1",
            out_shape="(batch, M, N)" if batched else "(M, N)",
            bias=f"self.{bias['name']}" if bias else "out", has_bias=str(bias is not None),
            a_batch_stride="a.stride(0)" if batched else "0",
            b_batch_stride="b.stride(0)" if batched else "0",
            c_batch_stride="out.stride(0)" if batched else "0")


def _operand(operand: dict, args: list[str]) -> str:
    """The operand as the kernel reads it: a transpose is a view with swapped strides."""
    name = args[operand["input"]] if operand["param"] is None \
        else f"self.{operand['param']['name']}"
    return f"{name}.t()" if operand["transpose"] else name
