"""Scaled dot-product attention, forward, FlashAttention-style: one program per (BLOCK_M rows
of queries, batch × head) streams BLOCK_N keys and values at a time, keeping a running max
and sum of the softmax (in base 2) and an fp32 accumulator, so the S×S scores never reach
memory. Causal: key blocks past the query block's last row are skipped, the diagonal block is
masked. fp16 inputs multiply in fp16 with fp32 accumulation (p is rounded to fp16 for p·v);
fp32 inputs use the task's dot precision."""

from __future__ import annotations

from dataclasses import dataclass

from .match import NoMatch, Params, _dot_precision, _is_input, _is_number, _ops
from .render import constructor, dot_precision, fill, header, signature
from .trace import Node, Ref, Trace

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


@dataclass(frozen=True, kw_only=True)
class AttentionParams(Params):
    causal: bool
    precision: str  # fp32 dot precision: "ieee" or "tf32"


class Attention:
    name = "attention"
    reads = "trace"
    knobs = {"BLOCK_M": 128, "BLOCK_N": 64, "NUM_WARPS": 8, "NUM_STAGES": 2}

    def match(self, trace: Trace, ctx) -> AttentionParams | NoMatch | None:
        return match_attention(trace)

    def render(self, params: AttentionParams, tune: dict[str, int]) -> str:
        q, k, v = params.args
        return header("attention", tune) + fill(
            KERNEL, precision=dot_precision(params.dtype, params.precision),
            init=constructor([], {}), signature=signature(params.args), q=q, k=k, v=v,
            causal=params.causal)


# ---- the matcher: which traces this family implements --------------------

_VIEWS = ("expand.default", "view.default", "_unsafe_view.default")


def match_attention(trace: Trace) -> AttentionParams | NoMatch | None:
    """softmax(q·kᵀ/√d [+ causal mask])·v over (B, H, S, D) inputs q, k, v of one shape, with
    the default scale, no attn_mask and no dropout. The trace is followed from the output
    back to the inputs; every op must be on that path (a dead dtype cast aside)."""
    if len(trace.inputs) != 3 or trace.inputs[0] is None or len(trace.inputs[0].shape) != 4 \
            or any(m != trace.inputs[0] for m in trace.inputs) \
            or trace.inputs[0].dtype != trace.dtype or "bmm.default" not in _ops(trace):
        return None
    seen: set[int] = set()
    found = _attention_path(trace, trace.output, seen)
    dead = [n for i, n in enumerate(trace.nodes) if i not in seen]
    if found is None or any(n.op != "_to_copy.default" for n in dead):
        return None
    return AttentionParams(causal=found["causal"], precision=_dot_precision(trace))


def _attention_path(trace: Trace, out, seen: set[int]) -> dict | None:
    walk = _Walk(trace, seen)
    node = walk.node(out)
    if node is not None and node.op == "_to_copy.default":  # fp16: back from the fp32 math
        node = walk.node(node.arg("self"))
    pv = walk.node(walk.source(node.arg("self"))) if node is not None \
        and node.op == "_unsafe_view.default" else None
    if pv is None or pv.op != "bmm.default":
        return None
    soft = walk.node(walk.source(pv.arg("self")))
    if soft is None or soft.op not in ("_safe_softmax.default", "_softmax.default") \
            or soft.arg("dim") not in (-1, 3) or not walk.is_input(pv.arg("mat2"), 2):
        return None
    scores, causal = walk.node(soft.arg("self")), False
    if scores is not None and scores.op == "add.Tensor":
        causal = _causal_mask(walk, scores.arg("other"))
        if not causal or scores.arg("alpha") != 1:
            return None
        scores = walk.node(scores.arg("self"))
    qk = walk.node(walk.source(scores.arg("self"))) if scores is not None \
        and scores.op == "_unsafe_view.default" else None
    if qk is None or qk.op != "bmm.default":
        return None
    return {"causal": causal} if _scaled_qk(walk, qk) else None


def _scaled_qk(walk: _Walk, qk: Node) -> bool:
    """q·s and (kᵀ)·s with s² = 1/√D: sdpa's default scale, split between the two."""
    q_mul, k_mul = walk.node(walk.source(qk.arg("self"))), walk.node(walk.source(qk.arg("mat2")))
    if q_mul is None or k_mul is None or {q_mul.op, k_mul.op} != {"mul.Scalar"}:
        return False
    scale, head_dim = q_mul.arg("other"), walk.trace.inputs[0].shape[3]
    k_t = walk.node(k_mul.arg("self"))
    return _is_number(scale) and k_mul.arg("other") == scale \
        and abs(scale * scale * head_dim ** 0.5 - 1) < 1e-6 \
        and walk.is_input(q_mul.arg("self"), 0) and k_t is not None \
        and k_t.op == "transpose.int" and {k_t.arg("dim0") % 4, k_t.arg("dim1") % 4} == {2, 3} \
        and walk.is_input(k_t.arg("self"), 1)


def _causal_mask(walk: _Walk, ref) -> bool:
    """where(tril(ones(S, S)), 0, -inf): is_causal=True's additive mask."""
    where = walk.node(ref)
    if where is None or where.op != "where.self":
        return False
    tril, zero, minus = (walk.node(where.arg(k)) for k in ("condition", "self", "other"))
    ones = walk.node(tril.arg("self")) if tril is not None and tril.op == "tril.default" \
        else None
    seq = walk.trace.inputs[0].shape[2]
    return ones is not None and ones.op == "ones.default" and ones.arg("size") == (seq, seq) \
        and tril.arg("diagonal") == 0 and zero is not None and minus is not None \
        and zero.op == minus.op == "scalar_tensor.default" and zero.arg("s") == 0 \
        and minus.arg("s") == float("-inf")


class _Walk:
    """Steps from a Ref to the node that made it, recording every node it passes."""

    def __init__(self, trace: Trace, seen: set[int]):
        self.trace, self.seen = trace, seen

    def node(self, ref) -> Node | None:
        if not (isinstance(ref, Ref) and ref.kind == "node"):
            return None
        self.seen.add(ref.key[0])
        return self.trace.nodes[ref.key[0]]

    def source(self, ref):
        """Back through expand and view (reshapes of one shape; no broadcast: the inputs
        share one shape) to what they view."""
        while isinstance(ref, Ref) and ref.kind == "node" \
                and self.trace.nodes[ref.key[0]].op in _VIEWS:
            ref = self.node(ref).arg("self")
        return ref

    def is_input(self, ref, index: int) -> bool:
        """Input `index`, maybe viewed, maybe cast to fp32 (the math path of fp16 inputs)."""
        ref = self.source(ref)
        node = self.node(ref)
        if node is not None and node.op == "_to_copy.default":
            ref = node.arg("self")
        return _is_input(ref, index)
