"""What a run may spend, and what it has spent. A run stops cleanly at whichever limit it
reaches first: LLM calls, tokens, dollars, wall-clock seconds or GPU-seconds.

`--budget calls=20,usd=2,tokens=500k,wall=30m,gpu=10m`; omitted limits are unlimited.
Tokens count only what a provider was paid for: a response served from the cache costs none.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field

from ..errors import UsageError

UNITS = {"": 1, "k": 1e3, "m": 1e6}
SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600}
KEYS = ("calls", "tokens", "usd", "wall", "gpu")


@dataclass(frozen=True)
class Budget:
    calls: int | None = None
    tokens: int | None = None
    usd: float | None = None
    wall_s: float | None = None
    gpu_s: float | None = None

    def describe(self) -> str:
        parts = [f"{k}={v:g}" for k, v in (("calls", self.calls), ("tokens", self.tokens),
                 ("usd", self.usd), ("wall_s", self.wall_s), ("gpu_s", self.gpu_s)) if v]
        return ", ".join(parts) or "unlimited"


def parse_budget(text: str | None) -> Budget:
    if not text:
        return Budget()
    values: dict = {}
    for item in text.split(","):
        key, _, value = item.strip().partition("=")
        if key not in KEYS or not value:
            raise UsageError(f"bad budget item {item!r}: use key=value with keys "
                             f"{', '.join(KEYS)}, e.g. calls=20,usd=2,tokens=500k,wall=30m")
        values[key] = _value(key, value.strip().lower())
    return Budget(values.get("calls"), values.get("tokens"), values.get("usd"),
                  values.get("wall"), values.get("gpu"))


def _value(key: str, value: str) -> float:
    table = SECONDS if key in ("wall", "gpu") else UNITS
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([a-z]?)", value)
    if not match or match.group(2) not in table:
        raise UsageError(f"bad budget value {key}={value!r}")
    number = float(match.group(1)) * table[match.group(2)]
    return int(number) if key in ("calls", "tokens") else number


@dataclass
class Spend:
    calls: int = 0
    tokens: int = 0
    usd: float = 0.0
    gpu_s: float = 0.0
    unpriced_calls: int = 0  # calls whose model has no known price: usd is a lower bound
    started: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, *, tokens: int = 0, usd: float | None = 0.0, gpu_s: float = 0.0,
            call: bool = True) -> None:
        with self.lock:
            self.calls += call
            self.tokens += tokens
            self.usd += usd or 0.0
            self.unpriced_calls += call and usd is None
            self.gpu_s += gpu_s

    @property
    def wall_s(self) -> float:
        return time.monotonic() - self.started

    def exhausted(self, budget: Budget) -> str | None:
        """Which limit is reached, or None."""
        for name, used, limit in (("calls", self.calls, budget.calls),
                                  ("tokens", self.tokens, budget.tokens),
                                  ("usd", self.usd, budget.usd),
                                  ("wall", self.wall_s, budget.wall_s),
                                  ("gpu", self.gpu_s, budget.gpu_s)):
            if limit is not None and used >= limit:
                return name
        return None

    def as_dict(self) -> dict:
        return {"calls": self.calls, "tokens": self.tokens, "usd": round(self.usd, 6),
                "unpriced_calls": self.unpriced_calls, "wall_s": round(self.wall_s, 1),
                "gpu_s": round(self.gpu_s, 1)}
