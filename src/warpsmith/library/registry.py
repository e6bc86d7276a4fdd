"""Library families by name. A family turns a Match's parameters and a choice of tuning knobs
into the complete source of a candidate file; `defaults` names every knob a tuner may vary
(block sizes, warps), each with the value used when nobody has tuned it."""

from __future__ import annotations

from typing import Protocol

from ..errors import UsageError


class Family(Protocol):
    defaults: dict[str, int]

    def render(self, params: dict, tune: dict[str, int]) -> str: ...


FAMILIES: dict[str, Family] = {}


def register(name: str):
    def add(cls: type) -> type:
        FAMILIES[name] = cls()
        return cls
    return add


def family(name: str) -> Family:
    if name not in FAMILIES:
        raise UsageError(f"unknown library family {name!r}; choose one of "
                         f"{', '.join(sorted(FAMILIES))}")
    return FAMILIES[name]


def knobs(name: str, tune: dict[str, int] | None) -> dict[str, int]:
    """The family's defaults with `tune` laid over them; an unknown knob is a usage error."""
    defaults = family(name).defaults
    unknown = sorted(set(tune or {}) - set(defaults))
    if unknown:
        raise UsageError(f"family {name!r} has no knob {', '.join(unknown)} "
                         f"(knobs: {', '.join(defaults)})")
    return defaults | dict(tune or {})
