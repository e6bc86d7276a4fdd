"""A depthwise convolution (one input channel per group, any channel multiplier) as its own
memory-bound kernel, for conv_text.py: the implicit GEMM spends dozens of integer divisions
per (pixel, tap) pair on a dot with one column, and measured 3-6 % of the roofline floor on
the H200 (KernelBench 82-86). Here each program owns BLOCK outputs of one (image, channel)
plane: the output pixel's coordinates are found once, each tap is a scalar weight and one
shifted, masked load of the input plane (its neighbours' loads hit the cache), and the
epilogue runs on the fp32 sum before the one store. The launch takes it whenever the weight
has one input channel per group (`w.shape[1] == 1`), decided at run time like the groups.
"""

from __future__ import annotations

from .layout import format_line

KNOBS = {"DW_BLOCK": 1024, "DW_WARPS": 4}


def kernel(k, name: str, extra: list[str]) -> str:
    """`extra`: the epilogue's parameters (pointers, strides, scalars), as the GEMM kernel
    takes them."""
    geo, rank = k.geo, k.geo.rank
    sp = range(rank)
    params = ["x_ptr", "w_ptr", "c_ptr", "OC", "MULT", "SP", "TAPS"] + \
        [f"IN{j}" for j in sp] + [f"OUT{j}" for j in sp] + \
        ["sx_n", "sx_c"] + [f"sx{j}" for j in sp] + ["sw_0"] + [f"sw{j}" for j in sp] + \
        ["sc_n", "sc_c"] + [f"sc{j}" for j in sp] + extra + \
        [f"KS{j}: tl.constexpr" for j in sp] + ["BLOCK: tl.constexpr"]
    body = [
        "tiles = tl.cdiv(SP, BLOCK)",
        "plane = tl.program_id(0) // tiles  # (image, output channel)",
        "nb = (plane // OC).to(tl.int64)",
        "oc = plane % OC",
        "offs = (tl.program_id(0) % tiles) * BLOCK + tl.arange(0, BLOCK)",
        "out_ok = offs < SP",
        "rest = offs",
    ]
    for j in reversed(sp):
        body += [f"o{j} = rest % OUT{j}", f"rest = rest // OUT{j}"]
    body += ["x_plane = x_ptr + nb * sx_n + (oc // MULT) * sx_c",
             "w_row = w_ptr + oc * sw_0",
             "acc = tl.zeros([BLOCK], dtype=tl.float32)",
             "for t in range(0, TAPS):  # the taps in the weight's order, last dim fastest",
             "    u = t"]
    for j in reversed(sp):
        body += [f"    t{j} = u % KS{j}", f"    u = u // KS{j}"]
    body += ["    ok = out_ok"]
    for j in sp:
        s, p, d = geo.stride[j], geo.padding[j], geo.dilation[j]
        body += [f"    i{j} = o{j} * {s} - {p} + t{j} * {d}",
                 f"    ok = ok & (i{j} >= 0) & (i{j} < IN{j})"]
    pixel = " + ".join(f"i{j} * sx{j}" for j in sp)
    taps = " + ".join(f"t{j} * sw{j}" for j in sp)
    body += [f"    wt = tl.load(w_row + {taps}).to(tl.float32)",
             f"    acc += tl.load(x_plane + {pixel}, mask=ok, other=0.0).to(tl.float32) * wt"]
    index = {0: "nb", 1: "oc"} | {2 + j: f"o{j}" for j in sp}
    body += [_load(ld, index) for ld in k.loads] + [format_line(ln) for ln in k.lines]
    at = " + ".join(["nb * sc_n", "oc * sc_c"] + [f"o{j} * sc{j}" for j in sp])
    body += [f"tl.store(c_ptr + {at}, {k.result}.to(c_ptr.dtype.element_ty), mask=out_ok)"]
    head = f"\n@triton.jit\ndef {name}(" + ", ".join(params) + "):\n"
    return head + "".join(f"    {line}\n" for line in body)


def _load(ld, index) -> str:
    """An epilogue operand at this program's image and channel and its BLOCK pixels."""
    cast = "" if ld.dtype == "bool" else ".to(tl.float32)"
    terms = [f"{index[d]} * {ld.name}_stride{j}" for j, d in enumerate(ld.dims)
             if d is not None]
    if not terms:
        return f"{ld.name} = tl.load({ld.name}_ptr){cast}"
    pixels = any(d is not None and d >= 2 for d in ld.dims)
    mask = ", mask=out_ok, other=0" if pixels else ""
    return f"{ld.name} = tl.load({ld.name}_ptr + {' + '.join(terms)}{mask}){cast}"


def launch(k, name: str, o: str, extra: list[str]) -> list[str]:
    """The forward's lines that run it, once `{o}` (the output) and `{o}_sp` exist."""
    rank = k.geo.rank
    args = [f"{o}_x", f"{o}_w", o, f"{o}.shape[1]", f"{o}.shape[1] // {o}_x.shape[1]",
            f"math.prod({o}_sp)", f"math.prod({o}_w.shape[2:])"] + \
        [f"{o}_x.shape[{2 + j}]" for j in range(rank)] + [f"{o}_sp[{j}]" for j in range(rank)] + \
        [f"{o}_x.stride({j})" for j in range(rank + 2)] + [f"{o}_w.stride(0)"] + \
        [f"{o}_w.stride({2 + j})" for j in range(rank)] + \
        [f"{o}.stride({j})" for j in range(rank + 2)] + extra
    taps = ", ".join(f"KS{j}={o}_w.shape[{2 + j}]" for j in range(rank))
    return [f"{name}[({o}.shape[0] * {o}.shape[1] * triton.cdiv(math.prod({o}_sp), DW_BLOCK),)](",
            f"    {', '.join(args)},",
            f"    {taps}, BLOCK=DW_BLOCK, num_warps=DW_WARPS)"]
