"""1-D and 3-D max and average pooling (nn.MaxPool1d/3d, nn.AvgPool1d/3d and F.*), matcher and
renderer in one file; 2-D pooling keeps its own family (pool2d.py).

One kernel serves both ranks: a 1-D pool is a 3-D one with D = H = 1 and a window of 1 in
those dims. The launch is one flat grid axis (planes × output depth × tiles), so no grid axis
is limited to 65535; each program owns one BLOCK_H × BLOCK_W tile of one output slice (a
1 × BLOCK_L run for 1-D) and walks the window unrolled (its size is constexpr), loading each
shifted tile with a mask for the padding: neighbouring windows' loads overlap, so most come
from L1. The plane offset is int64 (16·32·128³ inputs pass 2³⁰ elements). Accumulates in
fp32; max propagates NaN as torch does. ceil_mode is declined.
"""

from __future__ import annotations

from dataclasses import dataclass

from .match import Params, _is_input, _is_number, _one_float_input, _ops, _out
from .render import constructor, fill, header, signature
from .trace import Trace

KERNEL = '''
@triton.jit
def pool_kernel(x_ptr, out_ptr, D, H, W, OD, OH, OW, tiles_h, tiles_w,
                KD: tl.constexpr, KH: tl.constexpr, KW: tl.constexpr,
                SD: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr,
                PD: tl.constexpr, PH: tl.constexpr, PW: tl.constexpr,
                DD: tl.constexpr, DH: tl.constexpr, DW: tl.constexpr,
                IS_MAX: tl.constexpr, COUNT_PAD: tl.constexpr, DIVISOR: tl.constexpr,
                BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0)
    tw = pid % tiles_w
    th = (pid // tiles_w) % tiles_h
    slab = pid // (tiles_w * tiles_h)  # plane * OD + od
    od = slab % OD
    plane = (slab // OD).to(tl.int64)
    oh = th * BLOCK_H + tl.arange(0, BLOCK_H)[:, None]
    ow = tw * BLOCK_W + tl.arange(0, BLOCK_W)[None, :]
    inside = (oh < OH) & (ow < OW)
    x_plane = x_ptr + plane * D * H * W
    if IS_MAX:
        acc = tl.full((BLOCK_H, BLOCK_W), float("-inf"), tl.float32)
    else:
        acc = tl.zeros((BLOCK_H, BLOCK_W), tl.float32)
    count = tl.zeros((BLOCK_H, BLOCK_W), tl.float32)
    for kd in tl.static_range(KD):
        i_d = od * SD - PD + kd * DD
        x_slice = x_plane + i_d.to(tl.int64) * H * W
        d_ok = (i_d >= 0) & (i_d < D)
        for kh in tl.static_range(KH):
            ih = oh * SH - PH + kh * DH
            for kw in tl.static_range(KW):
                iw = ow * SW - PW + kw * DW
                m = inside & d_ok & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                if IS_MAX:
                    v = tl.load(x_slice + ih * W + iw, mask=m, other=float("-inf"))
                    acc = tl.maximum(acc, v.to(tl.float32), propagate_nan=tl.PropagateNan.ALL)
                else:
                    acc += tl.load(x_slice + ih * W + iw, mask=m, other=0.0).to(tl.float32)
                    count += m.to(tl.float32)
    if not IS_MAX:
        if DIVISOR != 0:  # divisor_override
            acc = acc / DIVISOR
        elif COUNT_PAD:
            acc = acc / (KD * KH * KW)  # without ceil_mode every window lies inside the padding
        else:
            acc = acc / tl.maximum(count, 1.0)
    out_slice = out_ptr + (plane * OD + od) * OH * OW
    tl.store(out_slice + oh * OW + ow, acc.to(out_ptr.dtype.element_ty), mask=inside)


class ModelNew(nn.Module):
$init
    def forward($signature):
        x = $x.contiguous()
$sizes
        out = torch.empty($out_shape, dtype=x.dtype, device=x.device)
        tiles_h, tiles_w = triton.cdiv(oh, $block_h), triton.cdiv(ow, $block_w)
        grid = (n * c * od * tiles_h * tiles_w,)
        pool_kernel[grid](x, out, d, h, w, od, oh, ow, tiles_h, tiles_w,
                          KD=$kd, KH=$kh, KW=$kw, SD=$sd, SH=$sh, SW=$sw, PD=$pd, PH=$ph,
                          PW=$pw, DD=$dd, DH=$dh, DW=$dw, IS_MAX=$is_max,
                          COUNT_PAD=$count_pad, DIVISOR=$divisor, BLOCK_H=$block_h,
                          BLOCK_W=$block_w, num_warps=NUM_WARPS)
        return out
'''

_SIZES = {
    1: ("        n, c, w = x.shape\n        d = h = od = oh = 1\n"
        "        ow = (w + 2 * $pw - $dw * ($kw - 1) - 1) // $sw + 1", "(n, c, ow)"),
    3: ("        n, c, d, h, w = x.shape\n"
        "        od = (d + 2 * $pd - $dd * ($kd - 1) - 1) // $sd + 1\n"
        "        oh = (h + 2 * $ph - $dh * ($kh - 1) - 1) // $sh + 1\n"
        "        ow = (w + 2 * $pw - $dw * ($kw - 1) - 1) // $sw + 1", "(n, c, od, oh, ow)"),
}


def _render(family: str, params: PoolParams, tune: dict[str, int]) -> str:
    rank = params.rank
    window = {}
    for key, letter in (("kernel", "k"), ("stride", "s"), ("padding", "p"),
                        ("dilation", "d")):
        values = (1,) * (3 - rank) + tuple(getattr(params, key)) if key != "padding" else \
            (0,) * (3 - rank) + tuple(getattr(params, key))
        window |= {f"{letter}{axis}": v for axis, v in zip("dhw", values, strict=True)}
    sizes, out_shape = _SIZES[rank]
    blocks = {"block_h": "BLOCK_H", "block_w": "BLOCK_W"} if rank == 3 else \
        {"block_h": "1", "block_w": "BLOCK_L"}
    return header(family, tune) + fill(
        KERNEL, init=constructor([], {}), signature=signature(params.args),
        x=params.args[0], sizes=fill(sizes, **window), out_shape=out_shape,
        is_max=params.kind == "max", count_pad=params.count_include_pad,
        divisor=params.divisor or 0, **window, **blocks)


@dataclass(frozen=True, kw_only=True)
class PoolParams(Params):
    rank: int  # 1 or 3
    kind: str  # "max" or "avg"
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]
    count_include_pad: bool
    divisor: int | float | None  # avg's divisor_override


class Pool1d:
    name = "pool1d"
    reads = "trace"
    knobs = {"BLOCK_L": 1024, "NUM_WARPS": 4}

    def match(self, trace: Trace, ctx) -> PoolParams | None:
        return match_pool1d(trace)

    def render(self, params: PoolParams, tune: dict[str, int]) -> str:
        return _render("pool1d", params, tune)


class Pool3d:
    name = "pool3d"
    reads = "trace"
    knobs = {"BLOCK_H": 4, "BLOCK_W": 64, "NUM_WARPS": 4}

    def match(self, trace: Trace, ctx) -> PoolParams | None:
        return match_pool3d(trace)

    def render(self, params: PoolParams, tune: dict[str, int]) -> str:
        return _render("pool3d", params, tune)


_POOL_OPS = {"max_pool2d_with_indices.default": "max", "avg_pool2d.default": "avg",
             "max_pool3d_with_indices.default": "max", "avg_pool3d.default": "avg"}


def _window(node, rank: int) -> dict | None:
    """The pooling parameters, or None for ceil_mode or anything not plain ints."""
    args = dict(node.args)  # avg pools have no dilation, max pools no divisor
    kernel = _tuple(args["kernel_size"], rank)
    stride = _tuple(args.get("stride"), rank) or kernel
    padding = _tuple(args.get("padding", 0), rank)
    dilation = _tuple(args.get("dilation") or 1, rank)
    divisor = args.get("divisor_override")
    if not (kernel and padding and dilation) or args.get("ceil_mode") \
            or (divisor is not None and not _is_number(divisor)):
        return None
    kind = _POOL_OPS[node.op]
    return {"kind": kind, "kernel": kernel, "stride": stride, "padding": padding,
            "dilation": dilation, "divisor": divisor,
            "count_include_pad": kind == "avg" and args.get("count_include_pad") is not False}


def _tuple(value, rank: int) -> tuple[int, ...] | None:
    values = (value,) if isinstance(value, int) else tuple(value or ())
    if len(values) == 1:
        values = values * rank
    ok = len(values) == rank and all(isinstance(v, int) and not isinstance(v, bool)
                                     for v in values)
    return values if ok else None


def match_pool3d(trace) -> PoolParams | None:
    """One 3-D pool of the (N, C, D, H, W) input, its indices unused."""
    ops = _ops(trace)
    if len(ops) != 1 or ops[0] not in _POOL_OPS or "3d" not in ops[0] \
            or trace.output != _out(0) or not _one_float_input(trace) \
            or len(trace.inputs[0].shape) != 5 or not _is_input(trace.nodes[0].arg("self"), 0):
        return None
    found = _window(trace.nodes[0], 3)
    return found and PoolParams(**found, rank=3)


def match_pool1d(trace) -> PoolParams | None:
    """nn.MaxPool1d / nn.AvgPool1d of an (N, C, L) input, as torch traces them: unsqueeze to
    (N, C, 1, L), a 2-D pool with a 1 × k window, squeeze (the indices' squeeze unused)."""
    ops, nodes = _ops(trace), trace.nodes
    if not (3 <= len(ops) <= 4 and ops[0] == "unsqueeze.default" and ops[1] in _POOL_OPS
            and "2d" in ops[1] and all(op == "squeeze.dim" for op in ops[2:])
            and trace.output == _out(2) and _one_float_input(trace)
            and len(trace.inputs[0].shape) == 3 and _is_input(nodes[0].arg("self"), 0)
            and nodes[0].arg("dim") in (-2, 2) and nodes[1].arg("self") == _out(0)
            and nodes[2].arg("self") == _out(1) and nodes[2].arg("dim") in (-2, 2)):
        return None
    found = _window(nodes[1], 2)
    if found is None or any(found[k][0] != v for k, v in (("kernel", 1), ("stride", 1),
                                                          ("padding", 0), ("dilation", 1))):
        return None
    return PoolParams(**{k: v[1:] if isinstance(v, tuple) else v for k, v in found.items()},
                      rank=1)
