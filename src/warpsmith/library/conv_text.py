"""The Triton text of a convolution kernel (conv.py plans it), written for its spatial rank:
grouped tile order over (output pixels × output channels of one group), a K loop whose
every step finds its (input channel, tap) pairs and the input pixels they read, masks for the
padding, the image's edges and, when transposed, the taps whose stride does not divide, then
the epilogue on the fp32 accumulator and one store into NC(D)HW.

Channels per group under 16 (depthwise) cannot feed tl.dot, whose tiles need 16 columns: the
launch then picks the DOT=False branch, a broadcast multiply and a sum over K per step, with
BLOCK_N shrunk to the group's channels, so a depthwise tile wastes no lanes on channels it
does not have.

A strict-fp32 product is IEEE on the CUDA cores or tf32x3 on the tensor cores (about fp32's
accuracy, three TF32 products: matmul.dot_lines), the CONV_TF32X3 knob's choice; issue 27
measured the IEEE convolutions at 0.18-0.99x eager, whose cuDNN runs TF32 where allowed.
"""

from __future__ import annotations

from . import conv_depthwise as depthwise
from . import conv_phase as phase
from .family import Piece
from .layout import format_line, runtime_scalars
from .matmul import dot_lines
from .pointwise import _arg, _host_arg

SETUP = '''    pid = tl.program_id(0)
$group
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(OCG, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rm < M
    col_ok = rn < OCG
    oc = g * OCG + rn
    # each row's output pixel; the last spatial dim varies fastest, as NC(D)HW stores it
    rest = rm
'''
LOOP = '''    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, $k, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        k_ok = rk < $k
        # each k's input channel and kernel tap, in the weight's own (ic, taps) order
        t = rk
'''
DOT = '''        if DOT:
$dot
        else:  # too few channels per group for tl.dot's 16-wide tiles (depthwise)
            acc += tl.sum(a.to(tl.float32)[:, :, None] * b.to(tl.float32)[None, :, :], axis=1)
'''


def render(k):

    rank = k.geo.rank
    scalars = runtime_scalars(k.lines)
    index = {0: "nb[:, None]", 1: "oc[None, :]"} | {2 + j: f"o{j}[:, None]"
                                                    for j in range(rank)}
    split = phase.phased(k.geo)
    group = "".join(f"    {ln}\n" for ln in phase.setup(k.geo)) if split else \
        "    g = tl.program_id(1)\n"
    body = SETUP.replace("$group\n", group) + _pixels(k.geo) + \
        LOOP.replace("$k", "KPH" if split else "K") + _taps(k.geo) + _loads(k.geo) + \
        DOT.replace("$dot", _indented(dot_lines(k.dtype, k.precision)))
    epilogue = [_load(ld, index) for ld in k.loads] + [format_line(ln) for ln in k.lines]
    if epilogue:
        epilogue.insert(0, "# the epilogue, on the fp32 accumulator, before the one store")
    body += "".join(f"    {line}\n" for line in epilogue) + _store(rank, k.result)
    text, launch = _head(k, rank, scalars) + body, _launch(k, rank, scalars)
    if k.geo.transposed:
        return Piece(text, launch)
    dw = f"{k.name}_depthwise"
    extra = _epilogue_args(k, scalars)
    return Piece(text + depthwise.kernel(k, dw, extra[0]), _called(k, dw, extra[1]))


def _indented(lines: str) -> str:
    """matmul.dot_lines's product, one level deeper: inside `if DOT:`."""
    return "\n".join("    " + line for line in lines.split("\n"))


def _epilogue_args(k, scalars) -> tuple[list[str], list[str]]:
    """The epilogue's parameters in the kernel, and what the forward passes for them."""
    strided = [(ld, j) for ld in k.loads for j, d in enumerate(ld.dims) if d is not None]
    return ([f"{ld.name}_ptr" for ld in k.loads] +
            [f"{ld.name}_stride{j}" for ld, j in strided] + [_arg(s) for s in scalars],
            [ld.host for ld in k.loads] + [f"{ld.host}.stride({j})" for ld, j in strided] +
            [_host_arg(s) for s in scalars])


def _called(k, dw: str, extra: list[str]) -> tuple[str, ...]:
    """The launch, a call of the candidate's `conv_launch` (LAUNCH, one definition for every
    convolution of the file: a ResNet's hundred launches written out ran its candidate past
    the verifier's source limit): the depthwise kernel when the weight has one input channel
    per group (known at run time, as the groups are), else the implicit GEMM."""
    o, geo = k.out, k.geo
    ints = [f"({', '.join(map(str, v))},)" for v in (geo.stride, geo.padding, geo.dilation)]
    args = [k.name, dw, f"{o}_x", f"{o}_w", f"torch.{k.out_dtype}", *ints, str(geo.groups or 0),
            f"({''.join(a + ', ' for a in extra)})"]
    return (f"{o}_x = {k.x}", f"{o}_w = {k.w}", f"{o} = conv_launch({', '.join(args)})",
            *k.views)




def _head(k, rank: int, scalars) -> str:
    sp = range(rank)
    params = ["x_ptr", "w_ptr", "c_ptr", "M", "OCG", "K", "ICG"] + \
        [f"IN{j}" for j in sp] + [f"OUT{j}" for j in sp] + \
        ["sx_n", "sx_c"] + [f"sx{j}" for j in sp] + ["sw_0", "sw_1"] + \
        [f"sw{j}" for j in sp] + ["sc_n", "sc_c"] + [f"sc{j}" for j in sp] + \
        [f"{ld.name}_ptr" for ld in k.loads] + \
        [f"{ld.name}_stride{j}" for ld in k.loads for j, d in enumerate(ld.dims)
         if d is not None] + [_arg(s) for s in scalars] + \
        [f"KS{j}: tl.constexpr" for j in sp] + \
        [f"{n}: tl.constexpr" for n in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "DOT",
                                        "TF32X3")]
    lines, line = [], ""
    for p in params:  # wrapped at the project's line length
        if len(line) + len(p) > 80:
            lines.append(line.rstrip())
            line = ""
        line += p + ", "
    lines.append(line.rstrip(", "))
    pad = " " * (len(k.name) + 5)
    return f"\n@triton.jit\ndef {k.name}(" + f",\n{pad}".join(
        ln.rstrip(",") for ln in lines) + "):\n"


def _pixels(geo) -> str:
    if phase.phased(geo):
        lines = phase.pixels(geo) + [f"KPH = {phase.k_total(geo)}  # this phase's K"]
    else:
        lines = [ln for j in reversed(range(geo.rank))
                 for ln in (f"o{j} = rest % OUT{j}", f"rest = rest // OUT{j}")]
    lines += ["nb = rest.to(tl.int64)  # images may hold more than 2**31 elements in all",
              "x_rows = x_ptr + nb * sx_n + (g * ICG) * sx_c"]
    return "".join(f"    {ln}\n" for ln in lines)


def _taps(geo) -> str:
    """Each k's tap and channel, then the input pixel each (row, k) reads and its mask."""
    if phase.phased(geo):
        return "".join(f"        {ln}\n" for ln in phase.taps(geo))
    rank, lines = geo.rank, []
    for j in reversed(range(rank)):
        lines += [f"t{j} = t % KS{j}", f"t = t // KS{j}"]
    lines += ["ic = t", "ok = row_ok[:, None] & k_ok[None, :]"]
    for j in range(rank):
        s, p, d = geo.stride[j], geo.padding[j], geo.dilation[j]
        if not geo.transposed:
            lines += [f"i{j} = o{j}[:, None] * {s} - {p} + t{j}[None, :] * {d}",
                      f"ok &= (i{j} >= 0) & (i{j} < IN{j})"]
        elif s == 1:
            lines += [f"i{j} = o{j}[:, None] + {p} - t{j}[None, :] * {d}",
                      f"ok &= (i{j} >= 0) & (i{j} < IN{j})"]
        else:  # the gather: only taps the stride divides read an input pixel
            lines += [f"j{j} = o{j}[:, None] + {p} - t{j}[None, :] * {d}",
                      f"i{j} = j{j} // {s}",
                      f"ok &= (j{j} >= 0) & (j{j} % {s} == 0) & (i{j} < IN{j})"]
    return "".join(f"        {ln}\n" for ln in lines)


def _loads(geo) -> str:
    rank = geo.rank
    pixel = " + ".join(f"i{j} * sx{j}" for j in range(rank))
    taps = " + ".join(f"t{j}[:, None] * sw{j}" for j in range(rank))
    if geo.transposed:  # (IC, OC/g, taps): the group's input channels are rows
        w_at = f"w_ptr + (g * ICG + ic[:, None]) * sw_0 + rn[None, :] * sw_1 + {taps}"
    else:  # (OC, IC/g, taps)
        w_at = f"w_ptr + oc[None, :] * sw_0 + ic[:, None] * sw_1 + {taps}"
    return (f"        a = tl.load(x_rows[:, None] + ic[None, :] * sx_c + {pixel}, mask=ok, "
            "other=0.0)\n"
            f"        b = tl.load({w_at},\n"
            "                    mask=k_ok[:, None] & col_ok[None, :], other=0.0)\n")


def _load(ld, index) -> str:
    cast = "" if ld.dtype == "bool" else ".to(tl.float32)"
    terms = [f"{index[d]} * {ld.name}_stride{j}" for j, d in enumerate(ld.dims)
             if d is not None]
    if not terms:  # one element for the whole tile
        return f"{ld.name} = tl.load({ld.name}_ptr){cast}"
    rows = any(d is not None and d != 1 for d in ld.dims)
    cols = 1 in ld.dims
    mask = " & ".join(m for m, used in (("row_ok[:, None]", rows), ("col_ok[None, :]", cols))
                      if used)
    return f"{ld.name} = tl.load({ld.name}_ptr + {' + '.join(terms)}, mask={mask}, other=0){cast}"


def _store(rank: int, result: str) -> str:
    at = " + ".join(["nb[:, None] * sc_n", "oc[None, :] * sc_c"] +
                    [f"o{j}[:, None] * sc{j}" for j in range(rank)])
    return (f"    tl.store(c_ptr + {at}, {result}.to(c_ptr.dtype.element_ty),\n"
            "             mask=row_ok[:, None] & col_ok[None, :])\n")


def _launch(k, rank: int, scalars) -> tuple[str, ...]:
    """The output's size from the geometry, the tiles capped by the problem, the grid over
    (tiles, groups)."""
    o, geo = k.out, k.geo
    sizes = []
    for j in range(rank):
        s, p, d, op = geo.stride[j], geo.padding[j], geo.dilation[j], geo.output_padding[j]
        n, ks = f"{o}_x.shape[{2 + j}]", f"{o}_w.shape[{2 + j}]"
        sizes.append(f"({n} - 1) * {s} - {2 * p} + {d} * ({ks} - 1) + {op + 1}"
                     if geo.transposed else f"({n} + {2 * p} - {d} * ({ks} - 1) - 1) // {s} + 1")
    groups = geo.groups or f"{o}_g"
    co = f"{o}_w.shape[1] * {groups}" if geo.transposed else f"{o}_w.shape[0]"
    args = [f"{o}_x", f"{o}_w", o, f"{o}_m", f"{o}_ocg", f"{o}_k", f"{o}_icg"] + \
        [f"{o}_x.shape[{2 + j}]" for j in range(rank)] + [f"{o}_sp[{j}]" for j in range(rank)] + \
        [f"{t}.stride({j})" for t in (f"{o}_x", f"{o}_w", o) for j in range(rank + 2)] + \
        [ld.host for ld in k.loads] + \
        [f"{ld.host}.stride({j})" for ld in k.loads for j, d in enumerate(ld.dims)
         if d is not None] + [_host_arg(s) for s in scalars]
    taps = ", ".join(f"KS{j}={o}_w.shape[{2 + j}]" for j in range(rank))
    return (f"{o}_x = {k.x}",
            f"{o}_w = {k.w}",
            *([] if geo.groups else [f"{o}_g = {o}_x.shape[1] // {o}_w.shape[1]  # groups"]),
            f"{o}_sp = ({', '.join(sizes)},)",
            f"{o} = torch.empty(({o}_x.shape[0], {co}, *{o}_sp), dtype=torch.{k.out_dtype}, "
            f"device={o}_x.device)",
            f"{o}_m = " + (phase.launch_rows(geo, o) if phase.phased(geo) else
                           f"{o}.shape[0] * math.prod({o}_sp)"),
            f"{o}_ocg, {o}_icg = {o}.shape[1] // {groups}, {o}_x.shape[1] // {groups}",
            f"{o}_k = {o}_icg * math.prod({o}_w.shape[2:])",
            f"{o}_dot = {o}_ocg >= 16  # else too few channels per group for tl.dot",
            f"bm = max(16, min(CONV_BLOCK_M, triton.next_power_of_2({o}_m)))",
            f"bn = min(CONV_BLOCK_N, triton.next_power_of_2({o}_ocg))",
            f"bk = max(16, min(CONV_BLOCK_K, triton.next_power_of_2({o}_k))) if {o}_dot else "
            f"max(1, min(triton.next_power_of_2({o}_k), 4096 // (bm * bn)))",
            f"grid = (triton.cdiv({o}_m, bm) * triton.cdiv({o}_ocg, bn), "
            f"{groups * phase.phases(geo) if phase.phased(geo) else groups})",
            f"{k.name}[grid](",
            f"    {', '.join(args)},",
            f"    {taps}, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=CONV_GROUP_M,",
            f"    DOT={o}_dot, TF32X3=CONV_TF32X3, num_warps=CONV_WARPS, "
            "num_stages=CONV_STAGES)", *k.views)
