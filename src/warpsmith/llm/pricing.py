"""Dollars from tokens: a built-in price table the user can override with a TOML or JSON file
($WARPSMITH_PRICES). A model missing from both costs None, never a guess: a budget in
dollars must know when it cannot count.

Override file, prices in USD per million tokens, keyed by model or by "provider:model":

    ["gpt-5"]
    input = 1.25
    output = 10.0
    cached_input = 0.125          # optional; the input price when left out

    ["openai-compatible:Qwen/Qwen3-32B"]   # a local server: free
    input = 0
    output = 0
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from .base import Provider, Request, Response, Usage

MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    input: float  # USD per million prompt tokens
    output: float  # USD per million generated tokens (reasoning included)
    cached_input: float | None = None  # per million prompt tokens read from the vendor cache


# List prices, standard tier, copied from the vendors' pages below in 2025 and not checked
# since: prices move, so every place that turns tokens into dollars can say how old these are
# (PRICES_AS_OF), and $WARPSMITH_PRICES overrides them. Dated snapshots ("gpt-4o-2024-08-06",
# "claude-sonnet-4-5-20250929") take the price of their undated name.
PRICES_AS_OF = "2025"
PRICE_SOURCES = {"openai": "https://openai.com/api/pricing/",
                 "anthropic": "https://www.anthropic.com/pricing#api"}
BUILTIN_PRICES = {
    "gpt-5": Price(1.25, 10.0, 0.125),
    "gpt-5-mini": Price(0.25, 2.0, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
    "gpt-4.1": Price(2.0, 8.0, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-4o": Price(2.50, 10.0, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "o1": Price(15.0, 60.0, 7.50),
    "o3": Price(2.0, 8.0, 0.50),
    "o3-mini": Price(1.10, 4.40, 0.55),
    "o4-mini": Price(1.10, 4.40, 0.275),
    "claude-opus-4-5": Price(5.0, 25.0, 0.50),
    "claude-opus-4-1": Price(15.0, 75.0, 1.50),
    "claude-opus-4-0": Price(15.0, 75.0, 1.50),
    "claude-opus-4": Price(15.0, 75.0, 1.50),
    "claude-sonnet-4-5": Price(3.0, 15.0, 0.30),
    "claude-sonnet-4-0": Price(3.0, 15.0, 0.30),
    "claude-sonnet-4": Price(3.0, 15.0, 0.30),
    "claude-3-7-sonnet": Price(3.0, 15.0, 0.30),
    "claude-haiku-4-5": Price(1.0, 5.0, 0.10),
    "claude-3-5-haiku": Price(0.80, 4.0, 0.08),
}

# What may follow a priced name and still be the same model: a date, or "latest".
SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


class PriceTable:
    def __init__(self, prices: dict[str, Price]):
        self.prices = dict(prices)

    @classmethod
    def load(cls, override: Path | None = None) -> PriceTable:
        prices = dict(BUILTIN_PRICES)
        if override is not None:
            prices.update(read_prices(override))
        return cls(prices)

    def lookup(self, provider: str, model: str) -> Price | None:
        for name in (model, SNAPSHOT.sub("", model)):
            for key in (f"{provider}:{name}", name):
                if key in self.prices:
                    return self.prices[key]
        return None

    def cost(self, provider: str, model: str, usage: Usage) -> float | None:
        price = self.lookup(provider, model)
        if price is None:
            return None
        cached_rate = price.input if price.cached_input is None else price.cached_input
        fresh = usage.input_tokens - usage.cached_input_tokens
        return (fresh * price.input + usage.cached_input_tokens * cached_rate
                + usage.output_tokens * price.output) / MILLION


def unpriced_note(spec: str, override: Path | None) -> str | None:
    """What a `usd=` budget should be told before a run with model `spec`: None when the
    model has a price (the built-in one is dated and sourced), else that its calls will not
    count against the limit and how to give a price."""
    from .registry import parse_spec

    parsed = parse_spec(spec)
    if parsed.kind == "hf":  # a local model costs nothing in dollars
        return None
    table = PriceTable.load(override)
    if table.lookup(parsed.kind, parsed.model) is not None:
        if override is not None and _in(override, parsed):
            return None
        source = PRICE_SOURCES.get(parsed.kind, "the vendor")
        return (f"note: {parsed.model}'s price is the built-in list price of {PRICES_AS_OF} "
                f"({source}); a file in $WARPSMITH_PRICES overrides it")
    return (f"note: no price known for {parsed.model}: its calls count as unpriced and the usd= "
            "limit cannot see them; give its price in a file named by $WARPSMITH_PRICES "
            "(docs/search.md), or add a calls= or tokens= limit")


def _in(override: Path, parsed) -> bool:
    names = read_prices(override)
    return any(key in names for key in (f"{parsed.kind}:{parsed.model}", parsed.model,
                                         SNAPSHOT.sub("", parsed.model)))


def read_prices(path: Path) -> dict[str, Price]:
    try:
        data = _parse(Path(path))
        return {str(name): _price(entry) for name, entry in data.items()}
    except (OSError, KeyError, ValueError, TypeError) as e:
        raise UsageError(f"price file {path}: {e} (expected, per model, a table with "
                         "input, output and optional cached_input in USD per million "
                         "tokens)") from e


def _parse(path: Path) -> dict:
    text = path.read_text()
    if path.suffix.lower() == ".json":
        return json.loads(text)
    try:
        import tomllib
    except ImportError:  # Python 3.10
        raise ValueError("TOML needs Python 3.11; write the prices as .json") from None
    return tomllib.loads(text)


def _price(entry) -> Price:
    if not isinstance(entry, dict):
        raise ValueError(f"{entry!r} is not a table")
    unknown = set(entry) - {f.name for f in dataclasses.fields(Price)}
    if unknown:
        raise ValueError(f"unknown price fields {sorted(unknown)}")
    cached = entry.get("cached_input")
    return Price(float(entry["input"]), float(entry["output"]),
                 None if cached is None else float(cached))


class Priced:
    """Fills in cost_usd where the backend left it None (a local model sets its own 0)."""

    def __init__(self, inner: Provider, table: PriceTable):
        self.inner = inner
        self.table = table

    def complete(self, request: Request) -> Response:
        response = self.inner.complete(request)
        if response.cost_usd is not None:
            return response
        cost = self.table.cost(response.provider, response.model, response.usage)
        if cost is None and response.served_model:
            cost = self.table.cost(response.provider, response.served_model, response.usage)
        return dataclasses.replace(response, cost_usd=cost)
