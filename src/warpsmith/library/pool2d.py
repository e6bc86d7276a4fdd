"""2-D max and average pooling over NCHW tensors: one program per (plane, BLOCK_H × BLOCK_W
tile of outputs) walks the window (unrolled: the window's size is a constexpr), loading each
shifted tile with a mask for the padding; neighbouring windows' loads overlap, so most of
them come from L1. Accumulates in fp32; max propagates NaN as torch does."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Params, _is_input, _is_number, _one_float_input, _ops, _out
from .render import constructor, fill, header, signature
from .trace import Trace

KERNELS = '''
@triton.jit
def pool2d_kernel(x_ptr, out_ptr, H, W, OH, OW,
                  KH: tl.constexpr, KW: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr,
                  PH: tl.constexpr, PW: tl.constexpr, DH: tl.constexpr, DW: tl.constexpr,
                  IS_MAX: tl.constexpr, COUNT_PAD: tl.constexpr, DIVISOR: tl.constexpr,
                  BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    oh = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)[:, None]
    ow = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)[None, :]
    inside = (oh < OH) & (ow < OW)
    x_plane = x_ptr + plane * H * W
    if IS_MAX:
        acc = tl.full((BLOCK_H, BLOCK_W), float("-inf"), tl.float32)
    else:
        acc = tl.zeros((BLOCK_H, BLOCK_W), tl.float32)
    count = tl.zeros((BLOCK_H, BLOCK_W), tl.float32)
    for kh in tl.static_range(KH):
        ih = oh * SH - PH + kh * DH
        for kw in tl.static_range(KW):
            iw = ow * SW - PW + kw * DW
            m = inside & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            if IS_MAX:
                v = tl.load(x_plane + ih * W + iw, mask=m, other=float("-inf"))
                acc = tl.maximum(acc, v.to(tl.float32), propagate_nan=tl.PropagateNan.ALL)
            else:
                acc += tl.load(x_plane + ih * W + iw, mask=m, other=0.0).to(tl.float32)
                count += m.to(tl.float32)
    if not IS_MAX:
        if DIVISOR != 0:  # divisor_override (torch refuses 0, allows a negative one)
            acc = acc / DIVISOR
        elif COUNT_PAD:
            acc = acc / (KH * KW)  # without ceil_mode every window lies inside the padding
        else:
            acc = acc / tl.maximum(count, 1.0)
    tl.store(out_ptr + plane * OH * OW + oh * OW + ow, acc.to(out_ptr.dtype.element_ty),
             mask=inside)


class ModelNew(nn.Module):
$init
    def forward($signature):
        x = $x.contiguous()
        n, c, h, w = x.shape
        oh = (h + 2 * $ph - $dh * ($kh - 1) - 1) // $sh + 1
        ow = (w + 2 * $pw - $dw * ($kw - 1) - 1) // $sw + 1
        out = torch.empty((n, c, oh, ow), dtype=x.dtype, device=x.device)
        grid = (n * c, triton.cdiv(oh, BLOCK_H), triton.cdiv(ow, BLOCK_W))
        pool2d_kernel[grid](x, out, h, w, oh, ow, KH=$kh, KW=$kw, SH=$sh, SW=$sw, PH=$ph,
                            PW=$pw, DH=$dh, DW=$dw, IS_MAX=$is_max, COUNT_PAD=$count_pad,
                            DIVISOR=$divisor, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W,
                            num_warps=NUM_WARPS)
        return out
'''


@dataclass(frozen=True, kw_only=True)
class Pool2dParams(Params):
    kind: str  # "max" or "avg"
    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]
    count_include_pad: bool
    divisor: int | float | None  # avg's divisor_override


class Pool2d:
    name = "pool2d"
    reads = "trace"
    knobs = {"BLOCK_H": 8, "BLOCK_W": 64, "NUM_WARPS": 4}

    def match(self, trace: Trace, ctx) -> Pool2dParams | None:
        return match_pool2d(trace)

    def render(self, params: Pool2dParams, tune: dict[str, int]) -> str:
        (kh, kw), (sh, sw) = params.kernel, params.stride
        (ph, pw), (dh, dw) = params.padding, params.dilation
        return header("pool2d", tune) + fill(
            KERNELS, init=constructor([], {}), signature=signature(params.args),
            x=params.args[0], kh=kh, kw=kw, sh=sh, sw=sw, ph=ph, pw=pw, dh=dh, dw=dw,
            is_max=params.kind == "max", count_pad=params.count_include_pad,
            divisor=params.divisor or 0)


# ---- the matcher: which traces this family implements --------------------

_POOL_OPS = {"max_pool2d_with_indices.default": "max", "avg_pool2d.default": "avg"}


def match_pool2d(trace: Trace) -> Pool2dParams | None:
    """nn.MaxPool2d / nn.AvgPool2d (and F.*) on a 4-D input, without ceil_mode; max returns
    the values only (its indices are unused)."""
    ops = _ops(trace)
    if len(ops) != 1 or ops[0] not in _POOL_OPS or trace.output != _out(0) \
            or not _one_float_input(trace) or len(trace.inputs[0].shape) != 4:
        return None
    node, kind = trace.nodes[0], _POOL_OPS[ops[0]]
    args = dict(node.args)  # avg_pool2d has no dilation, max_pool2d no divisor
    kernel = _pair(args["kernel_size"])
    stride = _pair(args.get("stride")) or kernel
    padding, dilation = _pair(args.get("padding", 0)), _pair(args.get("dilation") or 1)
    divisor = args.get("divisor_override")
    if not (_is_input(node.arg("self"), 0) and kernel and padding and dilation) \
            or node.arg("ceil_mode") or (divisor is not None and not _is_number(divisor)):
        return None
    return Pool2dParams(kind=kind, kernel=kernel, stride=stride, padding=padding,
                        dilation=dilation, count_include_pad=kind == "avg"
                        and args.get("count_include_pad") is not False, divisor=divisor)


def _pair(value) -> tuple[int, int] | None:
    """(a, b) from an int or a one- or two-element sequence of ints; None if it is neither."""
    values = (value,) if isinstance(value, int) else tuple(value or ())
    if len(values) == 1:
        values = values * 2
    ok = len(values) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                  for v in values)
    return values if ok else None


