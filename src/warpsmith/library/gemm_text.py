"""The Triton text of a GEMM kernel with its epilogue (gemm.py plans it): matmul.py's tile
walk, then each epilogue operand loaded at the tile's rows and columns it is indexed by (a
bias as one row of the tile, a per-row scale as one column, a residual as the whole tile),
the chain on the fp32 accumulator, one store."""

from __future__ import annotations

from .family import Piece
from .layout import format_line, runtime_scalars
from .matmul import K_LOOP, TILE_SETUP, dot_lines
from .pointwise import _arg, _host_arg
from .render import fill

HEAD = '''
@triton.jit
def $name(a_ptr, b_ptr, c_ptr, M, N, K,
          stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
          stride_cb, stride_cm, stride_cn,$extra
          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
          GROUP_M: tl.constexpr, TF32X3: tl.constexpr):
'''
STORE = '''    c_ptrs = c_ptr + batch * stride_cb + rows * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, {result}.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))
'''
# the tile's index along each output dim, and the mask it needs there
INDEX = {2: ("rows", "rn[None, :]"), 3: ("batch", "rows", "rn[None, :]")}
MASK = {"rows": "(rm[:, None] < M)", "rn[None, :]": "(rn[None, :] < N)"}


def render(k):

    scalars = runtime_scalars(k.lines)
    index = INDEX[3 if k.batched else 2]
    params = [f"{ld.name}_ptr" for ld in k.loads] + \
        [f"{ld.name}_stride{j}" for ld in k.loads for j, d in enumerate(ld.dims)
         if d is not None] + [_arg(s) for s in scalars]
    extra = "".join(f"\n          {p}," for p in params)
    dot = dot_lines(k.dtype, k.precision)
    walk = fill(HEAD + TILE_SETUP + "    k_begin, k_end = 0, K\n" + K_LOOP, name=k.name,
                extra=extra, dot=dot)
    epilogue = [_load(ld, index) for ld in k.loads] + [format_line(ln) for ln in k.lines]
    if epilogue:
        epilogue.insert(0, "# the epilogue, on the fp32 accumulator, before the one store")
    kernel = walk + "".join(f"    {line}\n" for line in epilogue) + \
        STORE.format(result=k.result)
    return Piece(kernel, _launch(k, scalars))


def _load(ld, index) -> str:
    cast = "" if ld.dtype == "bool" else ".to(tl.float32)"
    terms = [f"{index[d]} * {ld.name}_stride{j}" for j, d in enumerate(ld.dims)
             if d is not None]
    if not terms:  # one element for the whole tile
        return f"{ld.name} = tl.load({ld.name}_ptr){cast}"
    masks = [MASK[index[d]] for d in ld.dims if d is not None and index[d] in MASK]
    mask = f", mask={' & '.join(masks)}, other=0" if masks else ""
    return f"{ld.name} = tl.load({ld.name}_ptr + {' + '.join(terms)}{mask}){cast}"


def _launch(k, scalars) -> tuple[str, ...]:
    """The operands as views (a transposed weight stays in place), the tile sizes capped by
    the problem (tl.dot needs every tile dim >= 16), grouped 1-D grid, batch on axis 1."""
    o = k.out
    sizes = f"{o}_m, {o}_n" if not k.batched else f"{o}_a.shape[0], {o}_m, {o}_n"
    batch = f"{o}_a.shape[0]" if k.batched else "1"
    strides = [(f"{t}.stride(0)" if k.batched else "0", f"{t}.stride(-2)", f"{t}.stride(-1)")
               for t in (f"{o}_a", f"{o}_b", o)]
    args = [f"{o}_a", f"{o}_b", o, f"{o}_m", f"{o}_n", f"{o}_k"] + \
        [s for group in strides for s in group] + [ld.host for ld in k.loads] + \
        [f"{ld.host}.stride({j})" for ld in k.loads for j, d in enumerate(ld.dims)
         if d is not None] + [_host_arg(s) for s in scalars]
    return (f"{o}_a = {k.a.host}",
            f"{o}_b = {k.b.host}",
            f"{o}_m, {o}_k, {o}_n = {o}_a.shape[-2], {o}_a.shape[-1], {o}_b.shape[-1]",
            f"{o} = torch.empty(({sizes}), dtype=torch.{k.out_dtype}, device={o}_a.device)",
            "bm, bn, bk = (max(16, min(cap, triton.next_power_of_2(size))) for size, cap in "
            f"(({o}_m, GEMM_BLOCK_M), ({o}_n, GEMM_BLOCK_N), ({o}_k, GEMM_BLOCK_K)))",
            f"grid = (triton.cdiv({o}_m, bm) * triton.cdiv({o}_n, bn), {batch})",
            # tf32x3 where B's K is contiguous and rows of K 16-byte aligned (a Linear's
            # weight): matmul.py's K_MAJOR measured it 1.5x cuBLAS there, 0.7x elsewhere
            f"tf32x3 = bool(GEMM_TF32X3) and {o}_k % 4 == 0 and {o}_b.stride(-2) == 1",
            f"{k.name}[grid](",
            f"    {', '.join(args)},",
            "    BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=GEMM_GROUP_M, TF32X3=tf32x3,",
            "    num_warps=GEMM_WARPS, num_stages=GEMM_STAGES)", *k.views)
