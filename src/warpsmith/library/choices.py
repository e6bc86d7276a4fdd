"""Several texts for one number in a plan's forward lines, where one shape cannot tell which
the number follows: a fused QKV projection's split at `q_size` is half the width at 4:2 heads
(and `hidden_size`, and `num_heads * head_dim`), two thirds at 32:8. Each shape's plan writes
every text that gives its number, in order of preference; unifying the plans across shapes
(generator._unify) keeps the texts every shape allows, and `settle` writes the first left.

A choice is marked inside the line's text (`x.narrow(2, ⟨a∣b⟩, …)`), so the lines stay
strings wherever they travel."""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace

OPEN, SEP, CLOSE = "\u27e8", "\u2223", "\u27e9"
_MARK = re.compile(f"{OPEN}([^{CLOSE}]*){CLOSE}")


def choice(options) -> str:
    """The marked choice among the options; marked even when they are one, so every
    shape's text has its choices at the same places (another shape may have more)."""
    return OPEN + SEP.join(dict.fromkeys(options)) + CLOSE


def marked(text: str) -> bool:
    return OPEN in text


def agree(texts: list[str]) -> str | None:
    """One text for every shape's: equal outside their choices, each choice cut to the
    options all of them hold (in the first's order). None where none is left."""
    cut = [_MARK.split(t) for t in texts]
    if any(len(c) != len(cut[0]) for c in cut):
        return None
    out = []
    for i, parts in enumerate(zip(*cut, strict=True)):
        if i % 2 == 0:
            if any(p != parts[0] for p in parts):
                return None
            out.append(parts[0])
            continue
        held = [p.split(SEP) for p in parts]
        kept = [o for o in held[0] if all(o in h for h in held[1:])]
        if not kept:
            return None
        out.append(choice(kept))
    return "".join(out)


def settle(value):
    """`value` (a plan, its fields, their strings) with each choice its first option."""
    if isinstance(value, str):
        return _MARK.sub(lambda m: m.group(1).split(SEP)[0], value) if OPEN in value \
            else value
    if is_dataclass(value) and not isinstance(value, type):
        return replace(value, **{f.name: settle(getattr(value, f.name)) for f in fields(value)
                                 if f.init})
    if isinstance(value, tuple | list):
        return type(value)(settle(v) for v in value)
    if isinstance(value, dict):
        return {k: settle(v) for k, v in value.items()}
    return value
