"""What every provider takes and returns. A provider is anything with
`complete(request) -> Response`; retries, limits, prices and the cache wrap one another
behind that same method (registry.make_provider assembles them).

A call that fails is a Response whose `error` says why, never an exception: a search that
draws hundreds of samples must be able to count and skip the failures.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Protocol

ROLES = ("system", "user", "assistant")

# Kinds of CallError worth another try: the server may answer next time.
RETRYABLE = frozenset({"rate_limit", "server", "timeout", "connection"})


@dataclass(frozen=True)
class Message:
    role: str  # one of ROLES
    content: str


@dataclass(frozen=True)
class Request:
    messages: tuple[Message, ...]
    temperature: float | None = None  # None: the provider's default
    max_tokens: int = 16384  # output tokens, reasoning included where the vendor counts it so
    seed: int | None = None  # sent where the vendor supports it (OpenAI and most compatibles)
    n: int = 1  # choices drawn by one call
    # Which independent draw of the same prompt this is. Never sent; it keys the cache, so
    # best-of-n draws stay distinct yet a re-run replays each of them for free.
    sample: int = 0
    # Vendor-specific request fields, sent as they are: {"reasoning_effort": "high"} (OpenAI),
    # {"thinking": {"type": "enabled", "budget_tokens": 8000}} (Anthropic), {"top_p": 0.95}.
    extra_body: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def chat(cls, user: str, system: str = "", **settings) -> Request:
        messages = (Message("system", system),) if system else ()
        return cls(messages + (Message("user", user),), **settings)


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0  # every prompt token, cached ones included
    output_tokens: int = 0  # every generated token, reasoning included
    cached_input_tokens: int = 0  # the part of input_tokens read from the vendor's prompt cache
    reasoning_tokens: int = 0  # the part of output_tokens spent thinking, where reported

    def __add__(self, other: Usage) -> Usage:
        return Usage(*(a + b for a, b in zip(dataclasses.astuple(self),
                                             dataclasses.astuple(other), strict=True)))

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class CallError:
    # rate_limit, server, timeout, connection (retryable); auth, bad_request, bad_response,
    # local (not)
    kind: str
    message: str
    status: int | None = None  # the HTTP status, where there was one
    retry_after_s: float | None = None  # what the server asked us to wait

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE


@dataclass(frozen=True)
class Choice:
    text: str
    reasoning: str = ""  # the vendor's separate thinking channel, where it has one
    finish_reason: str = ""  # "stop", "length" (cut at max_tokens), …


@dataclass(frozen=True)
class Response:
    provider: str  # "openai", "anthropic", "openai-compatible", "hf"
    model: str  # as requested
    choices: tuple[Choice, ...] = ()
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None  # None: no price known for the model; 0.0 for cache hits
    error: CallError | None = None
    attempts: int = 1  # tries of this request: 1 + retries; 0 for a cache hit
    cached: bool = False
    latency_s: float = 0.0  # wall time, backoff sleeps included
    response_id: str = ""  # the vendor's id for the call, where it gives one
    served_model: str = ""  # the model the vendor says answered (often a dated snapshot)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def text(self) -> str:
        return self.choices[0].text if self.choices else ""

    @property
    def retries(self) -> int:
        return max(self.attempts - 1, 0)


class Provider(Protocol):
    def complete(self, request: Request) -> Response: ...


def response_to_dict(response: Response) -> dict:
    return dataclasses.asdict(response)


def response_from_dict(data: dict) -> Response:
    data = dict(data)
    data["choices"] = tuple(Choice(**c) for c in data.get("choices", ()))
    data["usage"] = Usage(**data.get("usage", {}))
    data["error"] = CallError(**data["error"]) if data.get("error") else None
    return Response(**data)
