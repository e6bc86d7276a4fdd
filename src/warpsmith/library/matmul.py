"""Matmul: mm, bmm and nn.Linear (x @ Wᵀ + b) as one tiled kernel with grouped tile order
(GROUP_M row tiles share their B columns in L2), fp32 accumulation, strides for any
transposed operand, and the bias fused into the epilogue. Strict fp32 tasks use IEEE dot.

The plain patterns are matched in match.py; the two matched here build on them: triu/tril of
a product (the triangle is the epilogue's mask, and a tile wholly outside it runs no K loop and
stores zeros, so half the tiles cost nothing), and a 3-D (or more) A times a matrix, which
torch traces as view → mm → _unsafe_view (the forward reshapes A to rows and the result back).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .match import FLOAT_DTYPES, NoMatch, Params, _dot_precision, _out, _parameter
from .render import constructor, dot_precision, fill, header, signature
from .trace import Node, Ref, Trace

# The tile walk every GEMM here shares (the graph family gemm.py too): grouped tile order,
# int64 row offsets, operands read at their strides (a transposed one in place).
TILE_SETUP = '''    pid = tl.program_id(0)
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
    rows = rm.to(tl.int64)[:, None]  # A and C may hold more than 2**31 elements
    a_ptrs = a_ptr + batch * stride_ab + rows * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
'''
# K from k_begin to k_end (a split-K program's share; 0 and K otherwise)
K_LOOP = '''    a_ptrs += k_begin * stride_ak
    b_ptrs += k_begin * stride_bk
    for k in range(k_begin, k_end, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] + k < k_end), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] + k < k_end) & (rn[None, :] < N), other=0.0)
$dot
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
'''


# tf32x3's tensor-core products ran 2-3x faster on the H200 with B's K contiguous (B.T
# given: 1.5x cuBLAS SGEMM) than with B's N contiguous (0.7x): such a B is copied K-major
# first where the copy is small beside the product (its bytes over the product's flops go
# as 4/M: at M = 512 it paid, 0.91x against 0.80x; at M = 256, K = 2**19 it took 3/4 of the
# GPU time), and IEEE is kept where rows of K are not 16-byte aligned
# (K = 2949: 0.42x eager with tf32x3, 0.66x with IEEE). docs/benchmarks/kernelbench.md.
K_MAJOR = '''
        tf32x3 = bool(TF32X3) and K % 4 == 0 and (b.stride(-2) == 1 or M >= 512)
        if tf32x3 and b.stride(-2) != 1 and b.shape[-2] > 1:
            b = b.transpose(-2, -1).contiguous().transpose(-2, -1)'''


def _switched(dtype: str, precision: str) -> bool:
    return dot_precision(dtype, precision) == ', input_precision="ieee"'


def dot_lines(dtype: str, precision: str, switch: bool = True) -> str:
    """The K loop's product. A strict-fp32 product has two (`switch`: the kernel has a
    TF32X3 argument), chosen by the TF32X3 knob: IEEE
    on the CUDA cores, or tf32x3 (each operand split into a TF32 head and tail, three
    tensor-core products: about fp32's accuracy, which the comparison judges as any
    kernel's; the strict-fp32 scan accepts both)."""
    if not _switched(dtype, precision) or not switch:
        return f"        acc = tl.dot(a, b, acc{dot_precision(dtype, precision)})"
    return ('        if TF32X3:\n'
            '            acc = tl.dot(a, b, acc, input_precision="tf32x3")\n'
            '        else:\n'
            '            acc = tl.dot(a, b, acc, input_precision="ieee")')

KERNEL = '''
@triton.jit
def matmul_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                  stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                  stride_cb, stride_cm, stride_cn, stride_cs, K_CHUNK, DIAG,
                  HAS_BIAS: tl.constexpr, TRI: tl.constexpr, TF32X3: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
''' + TILE_SETUP + '''    split = tl.program_id(2)  # split-K: this chunk of K, its own partial sum
    k_begin = split.to(tl.int64) * K_CHUNK  # times a stride: past int32 when K*N is
    k_end = tl.minimum(K, k_begin + K_CHUNK)
    c_ptr += split.to(tl.int64) * stride_cs
    if TRI == 1:  # triu: keep j - i >= DIAG; a tile wholly below it is zeros
        k_end = tl.where(pid_n * BLOCK_N + BLOCK_N - 1 - pid_m * BLOCK_M >= DIAG, k_end, 0)
    if TRI == -1:  # tril: keep j - i <= DIAG
        k_end = tl.where(pid_n * BLOCK_N - (pid_m * BLOCK_M + BLOCK_M - 1) <= DIAG, k_end, 0)
''' + K_LOOP + '''    if HAS_BIAS:  # once, in the first chunk's partial sum
        bias = tl.load(bias_ptr + rn, mask=(rn < N) & (split == 0), other=0.0)
        acc += bias.to(tl.float32)[None, :]
    if TRI == 1:
        acc = tl.where(rn[None, :] - rm[:, None] >= DIAG, acc, 0.0)
    if TRI == -1:
        acc = tl.where(rn[None, :] - rm[:, None] <= DIAG, acc, 0.0)
    c_ptrs = c_ptr + batch * stride_cb + rows * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def sum_splits_kernel(part_ptr, out_ptr, SPLITS, NUMEL, BLOCK: tl.constexpr):
    # the split-K partial sums, added in a fixed order (the same result every run)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < NUMEL
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, SPLITS):
        acc += tl.load(part_ptr + s * NUMEL + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc.to(out_ptr.dtype.element_ty), mask=mask)


def tile(size, cap):
    # tl.dot needs every tile dim >= 16; small problems get the smallest tile that covers them.
    return max(16, min(cap, triton.next_power_of_2(size)))


def k_chunk(tiles, K, bk):
    # Too few output tiles to fill the GPU and a long K: K is cut into chunks, each summed
    # by its own program (fewer sequential steps, so also less rounding), the partial sums
    # added by a second kernel. Chunks of whole K tiles, at least MIN_K_STEPS of them.
    splits = min(SPLIT_TARGET // max(tiles, 1), K // (bk * MIN_K_STEPS))
    if tiles * 2 > SPLIT_TARGET or splits < 2:
        return K
    return triton.cdiv(triton.cdiv(K, splits), bk) * bk


class ModelNew(nn.Module):
$init
    def forward($signature):
        a = $a$flatten
        b = $b
        M, K = a.shape[-2], a.shape[-1]
        N = b.shape[-1]
        batch = $batch
        out = torch.empty($out_shape, dtype=a.dtype, device=a.device)
        bias = $bias
        bm, bn, bk = tile(M, BLOCK_M), tile(N, BLOCK_N), tile(K, BLOCK_K)$k_major
        tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
        chunk = k_chunk(tiles * batch, K, bk)
        splits = triton.cdiv(K, chunk) if K else 1
        c = out if splits == 1 else torch.empty(
            (splits, batch, M, N), dtype=torch.float32, device=a.device)
        matmul_kernel[(tiles, batch, splits)](
            a, b, bias, c, M, N, K,
            $a_batch_stride, a.stride(-2), a.stride(-1),
            $b_batch_stride, b.stride(-2), b.stride(-1),
            $c_batch_stride if splits == 1 else M * N, c.stride(-2), c.stride(-1),
            batch * M * N, chunk if K else 1, $diag,
            HAS_BIAS=$has_bias, TRI=$tri, TF32X3=tf32x3, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
            GROUP_M=GROUP_M, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
        if splits > 1:
            numel = batch * M * N
            sum_splits_kernel[(triton.cdiv(numel, 1024),)](c, out, splits, numel, BLOCK=1024)
        return out$unflatten
'''


@dataclass(frozen=True, kw_only=True)
class MatmulParams(Params):
    a: dict  # an operand: {"input": i, "param": None, "transpose": t} or a parameter's
    b: dict
    bias: dict | None  # addmm's (match._parameter)
    batched: bool  # bmm
    precision: str  # fp32 dot precision: "ieee" or "tf32"
    tri: int = 0  # triu (1) or tril (-1) of the product
    diag: int = 0  # the triangle's diagonal
    rows: bool = False  # a (…, K) input read as (rows, K)


class Matmul:
    name = "matmul"
    reads = "trace"
    knobs = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8, "NUM_WARPS": 8,
             "NUM_STAGES": 3, "TF32X3": 1, "SPLIT_TARGET": 264, "MIN_K_STEPS": 16}

    def match(self, trace: Trace, ctx) -> MatmulParams | NoMatch | None:
        return match_any(trace)

    def render(self, params: MatmulParams, tune: dict[str, int]) -> str:
        args, bias, batched = params.args, params.bias, params.batched
        parameters = [o["param"] for o in (params.a, params.b) if o["param"]]
        parameters += [bias] if bias else []
        return header("matmul", tune) + fill(
            KERNEL, dot=dot_lines(params.dtype, params.precision),
            k_major=K_MAJOR if _switched(params.dtype, params.precision)
            else "\n        tf32x3 = False",
            init=constructor(parameters, {}),
            signature=signature(args), a=_operand(params.a, args),
            b=_operand(params.b, args), batch="a.shape[0]" if batched else "1",
            out_shape="(batch, M, N)" if batched else "(M, N)",
            bias=f"self.{bias['name']}" if bias else "out", has_bias=str(bias is not None),
            a_batch_stride="a.stride(0)" if batched else "0",
            b_batch_stride="b.stride(0)" if batched else "0",
            c_batch_stride="out.stride(0)" if batched else "0",
            tri=params.tri, diag=params.diag,
            flatten=".reshape(-1, $a.shape[-1])".replace("$a", _operand(params.a, args))
            if params.rows else "",
            unflatten=f".view(*{_operand(params.a, args)}.shape[:-1], N)"
            if params.rows else "")


def _operand(operand: dict, args: list[str]) -> str:
    """The operand as the kernel reads it: a transpose is a view with swapped strides."""
    name = args[operand["input"]] if operand["param"] is None \
        else f"self.{operand['param']['name']}"
    return f"{name}.t()" if operand["transpose"] else name


_TRIANGLES = {"triu.default": 1, "tril.default": -1}


def match_triangle(trace) -> MatmulParams | NoMatch | None:
    """torch.triu(A @ B, k) or torch.tril(A @ B, k): the product, then its triangle."""
    nodes = trace.nodes
    if len(nodes) < 2 or nodes[-1].op not in _TRIANGLES \
            or trace.output != _out(len(nodes) - 1) \
            or nodes[-1].arg("self") != _out(len(nodes) - 2) \
            or nodes[-2].op != "mm.default" or not isinstance(nodes[-1].arg("diagonal"), int):
        return None
    found = match_matmul(replace(trace, nodes=nodes[:-1], output=_out(len(nodes) - 2)))
    if not isinstance(found, MatmulParams):
        return found
    return replace(found, tri=_TRIANGLES[nodes[-1].op], diag=nodes[-1].arg("diagonal"))


_VIEWLIKE = {"view", "_unsafe_view", "reshape", "unsqueeze", "squeeze", "permute",
             "transpose", "t", "expand"}


def match_rows(trace) -> MatmulParams | NoMatch | None:
    """A (…, K) input times a (K, N) matrix, however torch traced it: torch.matmul of a 3-D
    tensor (view → mm → _unsafe_view) or einsum("bijl,lk->bijk") (unsqueezes, permutes and
    views around a bmm of batch 1). The views are replayed on meta tensors: the product's
    operands must be A's elements in A's own order as (rows, K) and B itself, and the result
    in the product's order, so the forward is A.reshape(-1, K) @ B viewed as (…, N)."""
    nodes = trace.nodes
    prods = [i for i, n in enumerate(nodes) if n.op in ("mm.default", "bmm.default")]
    if len(prods) != 1 or any(n.name not in _VIEWLIKE for i, n in enumerate(nodes)
                              if i != prods[0]) or len(trace.inputs) != 2 \
            or any(m is None or m.dtype != trace.dtype for m in trace.inputs) \
            or len(trace.inputs[0].shape) < 3 or len(trace.inputs[1].shape) != 2:
        return None
    g = prods[0]
    made = _replay(trace, g)
    if made is None:
        return None
    a, b, out = made
    (k, n), shape = trace.inputs[1].shape, trace.inputs[0].shape
    rows = a[0].numel() // max(k, 1)
    if not (a[1] == 0 and _in_order(a[0], (rows, k)) and b[1] == 1
            and _in_order(b[0], (k, n)) and out[1] == "product"
            and _in_order(out[0], (*shape[:-1], n)) and shape[-1] == k):
        return None
    mm = replace(nodes[g], op="mm.default",
                 args=(("self", Ref("input", 0)), ("mat2", Ref("input", 1))))
    found = match_matmul(replace(trace, nodes=(mm,), output=_out(0)))
    return replace(found, rows=True) if isinstance(found, MatmulParams) else found


def _replay(trace, g: int):
    """(tensor, source) of the product's two operands and of the output, the views run on
    meta tensors; source: the input a tensor views, or "product"."""
    import torch

    env = {("input", i): (torch.empty(m.shape, device="meta"), i)
           for i, m in enumerate(trace.inputs)}

    def get(ref):
        key = ("input", ref.key) if ref.kind == "input" else ref.key
        return env.get(key) if isinstance(ref, Ref) else None

    operands = None
    for i, node in enumerate(trace.nodes):
        if i == g:
            operands = (get(node.arg("self")), get(node.arg("mat2")))
            env[(i, 0)] = (torch.empty(node.outs[0].shape, device="meta"), "product")
            continue
        src = get(node.arg("self"))
        if src is None:
            return None
        op = getattr(getattr(torch.ops.aten, node.op.split(".")[0]), node.overload)
        args = {k: src[0] if k == "self" else v for k, v in node.args}
        try:
            env[(i, 0)] = (op(**args), src[1])
        except (RuntimeError, TypeError):
            return None
    out = get(trace.output) if isinstance(trace.output, Ref) else None
    if operands is None or None in operands or out is None:
        return None
    return operands[0], operands[1], out


def _in_order(t, shape: tuple) -> bool:
    """t holds its storage's first elements in row-major order, as `shape` (dims of size 1
    dropped first: their strides are anything)."""
    kept = [(s, st) for s, st in zip(t.shape, t.stride(), strict=True) if s != 1]
    want = [s for s in shape if s != 1]
    if [s for s, _ in kept] != want or t.storage_offset() != 0:
        return False
    step = 1
    for s, st in reversed(kept):
        if st != step:
            return False
        step *= s
    return True


def match_any(trace) -> MatmulParams | NoMatch | None:
    for fn in (match_matmul, match_triangle, match_rows):
        found = fn(trace)
        if found is not None:
            return found
    return None


# ---- the matcher: which traces this family implements --------------------

_TRANSPOSES = {"t.default", "permute.default", "transpose.int"}


def match_matmul(trace: Trace) -> MatmulParams | NoMatch | None:
    nodes = trace.nodes
    if not nodes or nodes[-1].op not in ("mm.default", "bmm.default", "addmm.default") \
            or trace.output != _out(len(nodes) - 1):
        return None
    last = nodes[-1]
    views = {_out(i): _transposed_operand(trace, n) for i, n in enumerate(nodes[:-1])}
    if any(v is None for v in views.values()):
        return None
    a = _traced_operand(trace, last.arg("self" if last.name != "addmm" else "mat1"), views)
    b = _traced_operand(trace, last.arg("mat2"), views)
    if a is None or b is None or len(views) != sum(o["transpose"] for o in (a, b)):
        return None
    bias = None
    if last.name == "addmm":
        bias = _parameter(trace, last.arg("self"))
        if bias is None or len(bias["shape"]) != 1 or last.arg("beta") != 1 \
                or last.arg("alpha") != 1:
            return None
    if trace.dtype not in FLOAT_DTYPES or any(m.dtype != trace.dtype for m in trace.inputs if m):
        return None
    return MatmulParams(a=a, b=b, bias=bias, batched=last.name == "bmm",
                        precision=_dot_precision(trace))


def _transposed_operand(trace: Trace, node: Node) -> Ref | None:
    """A 2-D transpose (x.T, x.t(), permute(1, 0), transpose(0, 1)) of an input or param."""
    if node.op not in _TRANSPOSES:
        return None
    src = node.arg("self")
    meta = trace.meta(src) if isinstance(src, Ref) else None
    if meta is None or len(meta.shape) != 2 or src.kind not in ("input", "param"):
        return None
    if node.op == "permute.default" and node.arg("dims") not in ((1, 0), (-1, -2)):
        return None
    if node.op == "transpose.int" and {node.arg("dim0") % 2, node.arg("dim1") % 2} != {0, 1}:
        return None
    return src


def _traced_operand(trace: Trace, ref, views: dict) -> dict | None:
    transpose = ref in views
    src = views[ref] if transpose else ref
    if not isinstance(src, Ref):
        return None
    if src.kind == "input":
        return {"input": src.key, "param": None, "transpose": transpose}
    param = _parameter(trace, src)
    return {"input": None, "param": param, "transpose": transpose} if param else None


