"""Scaled dot-product attention, forward, FlashAttention-style: one program per (BLOCK_M rows
of queries, batch × head) streams BLOCK_N keys and values at a time, keeping a running max
and sum of the softmax (in base 2) and an fp32 accumulator, so the S×S scores never reach
memory. Causal: key blocks past the query block's last row are skipped, the diagonal block is
masked. fp16 inputs multiply in fp16 with fp32 accumulation (p is rounded to fp16 for p·v);
fp32 inputs use the task's dot precision."""

from __future__ import annotations

from .registry import register
from .render import constructor, dot_precision, fill, header, signature

KERNEL = '''
@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq, head_dim, qk_scale,
                     CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_D: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    base = tl.program_id(1).to(tl.int64) * seq * head_dim
    rows = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, BLOCK_D)
    row_ok = rows < seq
    dim_ok = dims < head_dim
    q = tl.load(q_ptr + base + rows[:, None] * head_dim + dims[None, :],
                mask=row_ok[:, None] & dim_ok[None, :], other=0.0)
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    end = tl.minimum(seq, start_m + BLOCK_M) if CAUSAL else seq
    for start_n in range(0, end, BLOCK_N):
        cols = start_n + offs_n
        col_ok = cols < seq
        k = tl.load(k_ptr + base + cols[None, :] * head_dim + dims[:, None],
                    mask=col_ok[None, :] & dim_ok[:, None], other=0.0)
        s = tl.dot(q, k$precision) * qk_scale
        keep = col_ok[None, :]
        if CAUSAL:
            keep = keep & (rows[:, None] >= cols[None, :])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        # A row with no key yet (padding rows past seq) keeps m = -inf: subtract 0 instead.
        m_sub = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.exp2(s - m_sub[:, None])
        alpha = tl.exp2(m_i - m_sub)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + cols[:, None] * head_dim + dims[None, :],
                    mask=col_ok[:, None] & dim_ok[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v$precision)
        m_i = m_new
    out = acc / tl.where(l_i == 0.0, 1.0, l_i)[:, None]
    tl.store(o_ptr + base + rows[:, None] * head_dim + dims[None, :],
             out.to(o_ptr.dtype.element_ty), mask=row_ok[:, None] & dim_ok[None, :])


class ModelNew(nn.Module):
$init
    def forward($signature):
        q, k, v = $q.contiguous(), $k.contiguous(), $v.contiguous()
        batch, heads, seq, head_dim = q.shape
        out = torch.empty_like(q)
        # tl.dot needs every tile dim >= 16; sdpa's default scale 1/sqrt(D), in base 2.
        block_d = max(16, triton.next_power_of_2(head_dim))
        block_m = max(16, min(BLOCK_M, triton.next_power_of_2(seq)))
        block_n = max(16, min(BLOCK_N, triton.next_power_of_2(seq)))
        grid = (triton.cdiv(seq, block_m), batch * heads)
        attention_kernel[grid](q, k, v, out, seq, head_dim,
                               1.4426950408889634 / math.sqrt(head_dim), CAUSAL=$causal,
                               BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_D=block_d,
                               num_warps=NUM_WARPS, num_stages=NUM_STAGES)
        return out
'''


@register("attention")
class Attention:
    defaults = {"BLOCK_M": 128, "BLOCK_N": 64, "NUM_WARPS": 8, "NUM_STAGES": 2}

    def render(self, params: dict, tune: dict[str, int]) -> str:
        q, k, v = params["args"]
        return header("attention", tune) + fill(
            KERNEL, precision=dot_precision(params), init=constructor([], {}),
            signature=signature(params["args"]), q=q, k=k, v=v, causal=params["causal"])
