"""The tunable knobs of any Triton candidate, found with `ast` and rewritten in place.

A knob is an integer the candidate picks and Triton compiles in:

- a block size passed to a `tl.constexpr` parameter at a launch site
  `kernel[grid](..., BLOCK=1024)`, as a literal there, or through a local variable, a
  `self.` attribute or a module constant assigned once (`BLOCK = 1024`), or as the cap of
  `min(4096, triton.next_power_of_2(n))`;
- `num_warps` and `num_stages` at a launch site, the same ways; where absent they are added
  (Triton's defaults, 4 warps and 3 stages, apply until then). num_stages only pipelines
  loops, so a kernel without one gets no stages knob;
- a module constant that such a value is computed from (`tile(M, BLOCK_M)`), and a module
  constexpr global a kernel reads (`BLOCK: tl.constexpr = 1024`).

A literal block size that the grid (or a buffer) divides by in the same function —
`triton.cdiv(n, 256)` beside `BLOCK=256`, or `(n + 255) // 256` — is tied to it, so the grid
keeps covering the data. Knobs that share such a literal become one knob. A variant rewrites
those literals and nothing else: every other byte of the file stays as it was.

Deliberately not knobs: parameters that look like problem sizes (`HEAD_DIM=64`), flags
(`HAS_BIAS=True`), integers that are not powers of two where a power of two is needed (they
are likely semantic), values chosen by a branch (`16 if block >= 8192 else 8`) and thresholds
in comparisons. A candidate using `@triton.autotune` has none: its configs already choose
block sizes and warps at run time, and a launch-site value would conflict with them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import pyparse
from .knob_scan import Edit, _Module, _Raw

STEPS = 2  # a ladder reaches this many halvings and doublings (stages: ±1 per step)
BOUNDS = {"block": (16, 1 << 16), "group": (1, 64), "warps": (1, 32), "stages": (1, 6)}


@dataclass(frozen=True)
class Knob:
    name: str
    kind: str  # block, group, warps, stages, scale (a constant another value is computed from)
    value: int  # as written, or Triton's default where the launch names none
    edits: tuple[Edit, ...] = ()
    insert: int | None = None  # where `, num_warps=V` goes when the launch names none
    keyword: str = ""  # the keyword inserted there
    bare: bool = False  # the launch has no arguments: insert without the leading comma

    def ladder(self) -> tuple[int, ...]:
        """The values a tuner may give it, the written value included, ascending: powers of
        two apart (halvings that leave a remainder are skipped), stages one apart."""
        if self.kind == "stages":
            values = set(range(self.value - STEPS, self.value + STEPS + 1))
        else:
            values = {self.value << i for i in range(STEPS + 1)}
            values |= {self.value >> i for i in range(1, STEPS + 1)
                       if self.value % (1 << i) == 0}
        lo, hi = _bounds(self.kind, self.value)
        return tuple(sorted(v for v in values if lo <= v <= hi))


def _bounds(kind: str, value: int) -> tuple[int, int]:
    if kind == "scale":  # unknown meaning: stay within 16x of what the author chose
        return max(1, value // 16), value * 16
    lo, hi = BOUNDS[kind]
    return min(lo, value), max(hi, value)


@dataclass(frozen=True)
class Found:
    knobs: tuple[Knob, ...] = ()
    reason: str = ""  # why there are none, when there are none


def find_knobs(source: str) -> Found:
    try:
        tree = pyparse.parse(source)
    except SyntaxError as e:
        return Found(reason=f"the candidate does not parse (line {e.lineno}: {e.msg})")
    module = _Module(source, tree)
    if module.autotuned:
        return Found(reason=f"kernel {module.autotuned} uses @triton.autotune: its configs "
                            "already choose block sizes and warps at run time")
    if not module.kernels:
        return Found(reason="the candidate defines no @triton.jit kernel")
    sites = module.launch_sites()
    if not sites:
        return Found(reason="no launch `kernel[grid](...)` of the candidate's own kernels")
    raw = [k for site in sites for k in module.site_knobs(site)] + module.global_knobs()
    knobs = _named(_merged(raw))
    if not knobs:
        return Found(reason="no integer block size, num_warps or num_stages to vary")
    return Found(tuple(knobs))


def render(source: str, knobs: tuple[Knob, ...] | list[Knob], values: dict[str, int]) -> str:
    """The source with each named knob set to its value; knobs not named keep theirs."""
    data = source.encode()
    changes: list[tuple[int, int, int, bytes]] = []  # start, end, order, text
    for knob in knobs:
        value = values.get(knob.name, knob.value)
        if value == knob.value:
            continue
        changes += [(e.start, e.end, len(changes), str(value + e.offset).encode())
                    for e in knob.edits]
        if knob.insert is not None:
            # kernel[grid](): a trailing comma lets a second keyword follow the first
            text = f"{knob.keyword}={value}, " if knob.bare else f", {knob.keyword}={value}"
            changes.append((knob.insert, knob.insert, len(changes), text.encode()))
    # Back to front, so earlier offsets hold; two insertions at one place keep knob order.
    for start, end, _, text in sorted(changes, reverse=True):
        data = data[:start] + text + data[end:]
    return data.decode()


# ---------------------------------------------------------------------------------------
# Merging and naming


def _valid(raw: _Raw) -> bool:
    """Block sizes, warps and derived constants must stay powers of two (tl.arange needs
    them, Triton rejects other warp counts); an odd value is likely semantic, not a knob."""
    v = raw.value
    if raw.kind == "stages":
        return 1 <= v <= 8
    pow2 = v >= 1 and v & (v - 1) == 0
    if raw.kind == "warps":
        return pow2 and v <= 32
    if raw.kind == "group":
        return v >= 2
    return pow2 and v >= 2


def _merged(raws: list[_Raw]) -> list[_Raw]:
    """Knobs sharing a literal are one knob (a constant used at two launches, BM and BN
    tied through one grid literal). The first kind seen wins, a direct kind over scale."""
    merged: list[_Raw] = []
    for raw in (r for r in raws if _valid(r)):
        overlapping = [m for m in merged if m.edits & raw.edits]
        if not overlapping:
            merged.append(replace(raw, edits=set(raw.edits)))
            continue
        head = overlapping[0]
        for other in overlapping[1:] + [raw]:
            head.edits |= other.edits
            if other is not raw:
                merged.remove(other)
            if other.label not in head.label.split("+"):
                head.label += f"+{other.label}"
            if head.kind == "scale":
                head.kind = other.kind
    return merged


def _named(raws: list[_Raw]) -> list[Knob]:
    knobs, used = [], set()
    for raw in raws:
        name, n = raw.label, 2
        while name in used:
            name, n = f"{raw.label}#{n}", n + 1
        used.add(name)
        knobs.append(Knob(name, raw.kind, raw.value, tuple(sorted(raw.edits, key=_edit_key)),
                          raw.insert, raw.keyword, raw.bare))
    return knobs


def _edit_key(edit: Edit) -> tuple[int, int]:
    return edit.start, edit.end
