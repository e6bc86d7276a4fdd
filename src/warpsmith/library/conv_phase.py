"""A strided transposed convolution by output phase, for conv_text.py.

Gathering naively, output o reads input i = (o + p − t·d) / s through every tap t and masks
the taps s does not divide: in 3-D with stride 2, seven of eight MMA steps would do nothing.
Outputs of one phase r = o mod s share their taps, though: t·d ≡ r + p (mod s) holds for
t = q + s′·j (s′ = s / gcd(s, d)) when gcd(s, d) divides r + p, and for no t otherwise. So
each program takes one phase (the grid's second axis: groups × ∏s), its rows are that
phase's outputs o = r + s·u, and its K loop runs over the phase's own taps only, reading
i = u + (r + p − q·d) / s − j·d′ (d′ = d / gcd(s, d)). The constants come from the geometry
at render time; a phase with no taps stores its epilogue of zero (the bias).
"""

from __future__ import annotations

import math


def phased(geo) -> bool:
    return geo.transposed and any(s > 1 for s in geo.stride)


def setup(geo) -> list[str]:
    """Per program: its group and phase, and per dim the phase's first tap q, its offset
    into the input and how many taps it has. A phase with none runs no K step, yet its
    count must never divide: a division by n, which is 0 only in such a phase, let the GPU's
    compiler assume n > 0, drop the `where` and run those phases over the other phases'
    taps (the zeros of KernelBench 75, 77 and 79 came out as sums on the H200; the CPU
    interpreter runs no loop and was right)."""
    lines = [f"g = tl.program_id(1) % {geo.groups}", f"ph = tl.program_id(1) // {geo.groups}"]
    for j in reversed(range(geo.rank)):
        s = geo.stride[j]
        if s > 1:
            lines += [f"r{j} = ph % {s}", f"ph = ph // {s}"]
    for j in range(geo.rank):
        s, p, d = geo.stride[j], geo.padding[j], geo.dilation[j]
        if s == 1:
            lines += [f"q{j} = 0", f"base{j} = {p}", f"n{j} = KS{j}", f"r{j} = 0"]
            continue
        gcd = math.gcd(s, d)
        sp, dp = s // gcd, d // gcd
        inv = pow(dp, -1, sp) if sp > 1 else 0
        lines += [f"c{j} = r{j} + {p}",
                  f"q{j} = ((c{j} // {gcd}) * {inv}) % {sp}",
                  f"base{j} = (c{j} - q{j} * {d}) // {s}",
                  f"n{j} = tl.where(c{j} % {gcd} == 0, tl.maximum(KS{j} - q{j} + {sp - 1}, 0) "
                  f"// {sp}, 0)"]
    return lines


def pixels(geo) -> list[str]:
    """Each row's output pixel within the phase: o = r + s·u, masked past the edge."""
    lines = []
    for j in reversed(range(geo.rank)):
        s = geo.stride[j]
        lines += [f"u{j} = rest % ((OUT{j} + {s - 1}) // {s})",
                  f"rest = rest // ((OUT{j} + {s - 1}) // {s})",
                  f"o{j} = r{j} + u{j} * {s}", f"row_ok = row_ok & (o{j} < OUT{j})"]
    return lines


def k_total(geo) -> str:
    return " * ".join(["ICG"] + [f"n{j}" for j in range(geo.rank)])


def taps(geo) -> list[str]:
    """Each k's channel and tap index j (its tap t = q + s′·j), the input pixel, the mask."""
    lines = []
    for j in reversed(range(geo.rank)):  # never divided by 0 (see the note in setup)
        lines += [f"jj{j} = t % tl.maximum(n{j}, 1)", f"t = t // tl.maximum(n{j}, 1)"]
    lines += ["ic = t", "ok = row_ok[:, None] & k_ok[None, :]"]
    for j in range(geo.rank):
        s, d = geo.stride[j], geo.dilation[j]
        gcd = math.gcd(s, d)
        lines += [f"t{j} = q{j} + jj{j} * {s // gcd}",
                  f"i{j} = u{j}[:, None] + base{j} - jj{j}[None, :] * {d // gcd}",
                  f"ok &= (i{j} >= 0) & (i{j} < IN{j})"]
    return lines


def launch_rows(geo, o: str) -> str:
    """M: the rows of the largest phase (the others mask their last ones)."""
    return f"{o}.shape[0] * " + " * ".join(
        f"triton.cdiv({o}_sp[{j}], {geo.stride[j]})" for j in range(geo.rank))


def phases(geo) -> int:
    return math.prod(geo.stride)
