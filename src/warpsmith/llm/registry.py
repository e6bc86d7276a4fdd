"""Providers by spec string, assembled with retries, a concurrency limit, prices and the
cache:

    openai:MODEL                          key from OPENAI_API_KEY
    anthropic:MODEL                       key from ANTHROPIC_API_KEY
    openai-compatible:BASE_URL#MODEL      vLLM, SGLang, Ollama, llama.cpp, DeepSeek, OpenRouter
    hf:PATH                               a local transformers model
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import config
from ..errors import UsageError
from .base import Provider
from .cache import Cached, ResponseCache
from .limit import Limited
from .pricing import Priced, PriceTable
from .retry import Retrying, RetryPolicy

SPEC_FORMS = ("openai:MODEL", "anthropic:MODEL", "openai-compatible:BASE_URL#MODEL", "hf:PATH")
# A local model generates one request at a time; the vendors take many.
DEFAULT_CONCURRENCY = {"hf": 1}
API_CONCURRENCY = 8


@dataclass(frozen=True)
class ProviderSpec:
    kind: str
    model: str
    base_url: str | None = None  # openai-compatible only

    def __str__(self) -> str:
        if self.base_url is not None:
            return f"{self.kind}:{self.base_url}#{self.model}"
        return f"{self.kind}:{self.model}"

    @property
    def endpoint(self) -> str:
        """Who answers: the kind, with the server's URL for a compatible one."""
        return self.kind if self.base_url is None else f"{self.kind}:{self.base_url}"


@dataclass(frozen=True)
class ProviderSettings:
    timeout_s: float = 600.0  # per HTTP call; long reasoning answers take minutes
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    concurrency: int | None = None  # calls in flight at once; None: 8, or 1 for hf
    cache: bool = True
    cache_path: Path | None = None  # None: config.llm_cache_path()
    prices_path: Path | None = None  # None: config.llm_prices_path(), if set


Backend = Callable[[ProviderSpec, ProviderSettings], Provider]
BACKENDS: dict[str, Backend] = {}


def backend(kind: str):
    def register(fn: Backend) -> Backend:
        BACKENDS[kind] = fn
        return fn
    return register


def parse_spec(spec: str) -> ProviderSpec:
    kind, sep, rest = spec.partition(":")
    if not sep or kind not in BACKENDS:
        raise UsageError(f"unknown provider {kind!r} in model spec {spec!r} "
                         f"(valid: {', '.join(SPEC_FORMS)})")
    if kind != "openai-compatible":
        if not rest:
            raise UsageError(f"model spec {spec!r} names no model (expected {kind}:MODEL)")
        return ProviderSpec(kind, rest)
    base_url, _, model = rest.partition("#")
    if not base_url.startswith(("http://", "https://")) or not model:
        raise UsageError(f"model spec {spec!r}: expected openai-compatible:BASE_URL#MODEL, "
                         "e.g. openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-32B")
    return ProviderSpec(kind, model, base_url)


def make_provider(spec: str | ProviderSpec,
                  settings: ProviderSettings | None = None) -> Provider:
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    settings = settings or ProviderSettings()
    provider = BACKENDS[spec.kind](spec, settings)
    provider = Retrying(provider, settings.retry)
    limit = settings.concurrency or DEFAULT_CONCURRENCY.get(spec.kind, API_CONCURRENCY)
    provider = Limited(provider, limit)
    provider = Priced(provider, PriceTable.load(settings.prices_path or config.llm_prices_path()))
    if settings.cache:
        cache = ResponseCache(settings.cache_path or config.llm_cache_path())
        provider = Cached(provider, cache, spec.endpoint, spec.model)
    return provider


@backend("openai")
def _openai(spec: ProviderSpec, settings: ProviderSettings) -> Provider:
    from .openai import OpenAIProvider

    return OpenAIProvider(spec.model, api_key=_key(config.openai_api_key(), "OPENAI_API_KEY"),
                          base_url=config.openai_base_url(), timeout_s=settings.timeout_s)


@backend("anthropic")
def _anthropic(spec: ProviderSpec, settings: ProviderSettings) -> Provider:
    from .anthropic import AnthropicProvider

    return AnthropicProvider(spec.model,
                             api_key=_key(config.anthropic_api_key(), "ANTHROPIC_API_KEY"),
                             base_url=config.anthropic_base_url(),
                             timeout_s=settings.timeout_s)


@backend("openai-compatible")
def _compatible(spec: ProviderSpec, settings: ProviderSettings) -> Provider:
    from .openai import OpenAIProvider

    # max_tokens, not max_completion_tokens: the one field every compatible server knows.
    return OpenAIProvider(spec.model, api_key=config.openai_compat_api_key(),
                          base_url=spec.base_url, timeout_s=settings.timeout_s,
                          name="openai-compatible", token_param="max_tokens")


@backend("hf")
def _hf(spec: ProviderSpec, settings: ProviderSettings) -> Provider:
    from .hf import HFProvider

    return HFProvider(spec.model)


def _key(value: str | None, variable: str) -> str:
    if not value:
        raise UsageError(f"no API key: set {variable}")
    return value
