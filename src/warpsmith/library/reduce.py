"""Reductions (sum, mean, max, min, L2 norm, argmax, argmin) over one dim or a run of adjacent
dims. The input is viewed as (outer, reduced, inner): with inner == 1 each program reduces a
contiguous row in BLOCK chunks; otherwise each program owns BLOCK_I adjacent columns and walks
the reduced dim in BLOCK_R × BLOCK_I tiles, so every load is a contiguous run."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Params, _is_input, _one_float_input, _out
from .render import constructor, fill, header, signature
from .trace import Trace

# op -> (value a masked lane loads, accumulator update, final value from acc along axis 0)
VALUES = {
    "sum": ("0.0", "acc += x", "tl.sum(acc, axis=0)"),
    "mean": ("0.0", "acc += x", "tl.sum(acc, axis=0) / n_red"),
    "norm2": ("0.0", "acc += x * x", "tl.sqrt(tl.sum(acc, axis=0))"),
    "max": ('-float("inf")', "acc = tl.maximum(acc, x)", "tl.max(acc, axis=0)"),
    "min": ('float("inf")', "acc = tl.minimum(acc, x)", "tl.min(acc, axis=0)"),
}
# arg ops: (masked value, comparison that replaces a lane's best, reduction of the bests)
ARGS = {"argmax": ('-float("inf")', ">", "tl.max"), "argmin": ('float("inf")', "<", "tl.min")}

VALUE_KERNELS = '''
@triton.jit
def reduce_rows_kernel(x_ptr, out_ptr, n_red, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_red
    offs = tl.arange(0, BLOCK)
    acc = tl.full([BLOCK], $other, dtype=tl.float32)
    for start in range(0, n_red, BLOCK):
        r = start + offs
        x = tl.load(x_row + r, mask=r < n_red, other=$other).to(tl.float32)
        $update
    total = $final
    tl.store(out_ptr + row, total.to(out_ptr.dtype.element_ty))


@triton.jit
def reduce_cols_kernel(x_ptr, out_ptr, n_red, n_inner, BLOCK_R: tl.constexpr,
                       BLOCK_I: tl.constexpr):
    outer = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < n_inner
    base = x_ptr + outer * n_red * n_inner
    offs = tl.arange(0, BLOCK_R)
    acc = tl.full([BLOCK_R, BLOCK_I], $other, dtype=tl.float32)
    for start in range(0, n_red, BLOCK_R):
        r = start + offs
        mask = (r < n_red)[:, None] & col_mask[None, :]
        x = tl.load(base + r.to(tl.int64)[:, None] * n_inner + cols[None, :], mask=mask,
                    other=$other).to(tl.float32)
        $update
    total = $final
    tl.store(out_ptr + outer * n_inner + cols, total.to(out_ptr.dtype.element_ty),
             mask=col_mask)
'''

# Each lane keeps its best value and the first index reaching it (strict comparison); the
# answer is the smallest index among lanes holding the overall best, as torch returns.
ARG_KERNELS = '''
@triton.jit
def reduce_rows_kernel(x_ptr, out_ptr, n_red, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_red
    offs = tl.arange(0, BLOCK)
    best_v = tl.full([BLOCK], $other, dtype=tl.float32)
    best_i = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, n_red, BLOCK):
        r = start + offs
        x = tl.load(x_row + r, mask=r < n_red, other=$other).to(tl.float32)
        better = x $cmp best_v
        best_v = tl.where(better, x, best_v)
        best_i = tl.where(better, r, best_i)
    best = $pick(best_v, axis=0)
    idx = tl.min(tl.where(best_v == best, best_i, n_red), axis=0)
    tl.store(out_ptr + row, idx.to(tl.int64))


@triton.jit
def reduce_cols_kernel(x_ptr, out_ptr, n_red, n_inner, BLOCK_R: tl.constexpr,
                       BLOCK_I: tl.constexpr):
    outer = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < n_inner
    base = x_ptr + outer * n_red * n_inner
    offs = tl.arange(0, BLOCK_R)
    best_v = tl.full([BLOCK_R, BLOCK_I], $other, dtype=tl.float32)
    best_i = tl.zeros([BLOCK_R, BLOCK_I], dtype=tl.int32)
    for start in range(0, n_red, BLOCK_R):
        r = start + offs
        mask = (r < n_red)[:, None] & col_mask[None, :]
        x = tl.load(base + r.to(tl.int64)[:, None] * n_inner + cols[None, :], mask=mask,
                    other=$other).to(tl.float32)
        better = x $cmp best_v
        best_v = tl.where(better, x, best_v)
        best_i = tl.where(better, r[:, None], best_i)
    best = $pick(best_v, axis=0)
    idx = tl.min(tl.where(best_v == best[None, :], best_i, n_red), axis=0)
    tl.store(out_ptr + outer * n_inner + cols, idx.to(tl.int64), mask=col_mask)
'''

MODEL = '''

class ModelNew(nn.Module):
$init
    def forward($signature):
        x = $x.contiguous()
        first, last = x.dim() - $first, x.dim() - $last  # the reduced dims, inclusive
        outer = math.prod(x.shape[:first])
        n_red = math.prod(x.shape[first:last + 1])
        inner = math.prod(x.shape[last + 1:])
        kept = $kept
        out = torch.empty(tuple(x.shape[:first]) + kept + tuple(x.shape[last + 1:]),
                          dtype=$out_dtype, device=x.device)
        if inner == 1:
            block = min(BLOCK, triton.next_power_of_2(n_red))
            reduce_rows_kernel[(outer,)](x, out, n_red, BLOCK=block, num_warps=ROW_WARPS)
        else:
            block_i = min($block_i, triton.next_power_of_2(inner))
            grid = (outer, triton.cdiv(inner, block_i))
            reduce_cols_kernel[grid](x, out, n_red, inner, BLOCK_R=$block_r, BLOCK_I=block_i,
                                     num_warps=COL_WARPS)
        return out
'''


@dataclass(frozen=True, kw_only=True)
class ReduceParams(Params):
    op: str  # a value of _REDUCTIONS
    first: int  # the run of reduced dims, counted from the end (-1: the last)
    last: int
    keepdim: bool


class Reduce:
    name = "reduce"
    reads = "trace"
    # over a middle dim, measured on the H100 at KernelBench's sizes (benchmarks/knob_sweep.py,
    # docs/benchmarks/raw/knob-sweep-h100-2026-12-05-b.jsonl): a sum 3.79 -> 3.51 ms with
    # 4 x 512 tiles; an argmax 9.44 -> 3.64 ms with 8 x 256 (32 x 128 kept 3 tiles of state
    # a lane and ran at a third of eager)
    knobs = {"BLOCK": 4096, "ROW_WARPS": 8, "BLOCK_R": 4, "BLOCK_I": 512, "COL_WARPS": 4,
             "ARG_BLOCK_R": 8, "ARG_BLOCK_I": 256}

    def match(self, trace: Trace, ctx) -> ReduceParams | None:
        return match_reduce(trace)

    def render(self, params: ReduceParams, tune: dict[str, int]) -> str:
        op = params.op
        if op in ARGS:
            other, cmp, pick = ARGS[op]
            kernels = fill(ARG_KERNELS, other=other, cmp=cmp, pick=pick)
            out_dtype, blocks = "torch.int64", ("ARG_BLOCK_R", "ARG_BLOCK_I")
        else:
            other, update, final = VALUES[op]
            kernels = fill(VALUE_KERNELS, other=other, update=update, final=final)
            out_dtype, blocks = "x.dtype", ("BLOCK_R", "BLOCK_I")
        return header("reduce", tune) + kernels + fill(
            MODEL, init=constructor([], {}), signature=signature(params.args),
            x=params.args[0], first=-params.first, last=-params.last,
            kept="(1,) * (last + 1 - first)" if params.keepdim else "()",
            out_dtype=out_dtype, block_r=blocks[0], block_i=blocks[1])


# ---- the matcher: which traces this family implements --------------------

_REDUCTIONS = {"sum.dim_IntList": "sum", "mean.dim": "mean", "amax.default": "max",
               "amin.default": "min", "max.dim": "max", "min.dim": "min",
               "argmax.default": "argmax", "argmin.default": "argmin",
               "linalg_vector_norm.default": "norm2"}


def match_reduce(trace: Trace) -> ReduceParams | None:
    if len(trace.nodes) != 1 or trace.nodes[0].op not in _REDUCTIONS \
            or not _one_float_input(trace) or trace.output != _out(0):
        return None
    node = trace.nodes[0]
    op = _REDUCTIONS[node.op]
    ndim = len(trace.inputs[0].shape)
    if not _is_input(node.arg("self"), 0) or dict(node.args).get("dtype") is not None:
        return None
    if op == "norm2" and node.arg("ord") != 2:
        return None
    dims = _dim_run(node.arg("dim"), ndim)
    if dims is None or (op in ("argmax", "argmin") and dims[0] != dims[1]):
        return None
    return ReduceParams(op=op, first=dims[0] - ndim, last=dims[1] - ndim,
                        keepdim=bool(node.arg("keepdim")))


def _dim_run(dim, ndim: int) -> tuple[int, int] | None:
    """Adjacent dims as (first, last), non-negative; None for none, all-by-default or gaps."""
    if dim is None or ndim == 0:
        return None
    dims = sorted({d % ndim for d in (dim if isinstance(dim, tuple) else (dim,))})
    if not dims or dims != list(range(dims[0], dims[-1] + 1)):
        return None
    return dims[0], dims[-1]


