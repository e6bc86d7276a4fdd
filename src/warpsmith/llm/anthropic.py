"""Anthropic's messages API through the official SDK."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

from ..errors import UsageError
from .base import CallError, Choice, Request, Response, Usage
from .openai import PARSE_ERRORS
from .retry import sdk_error

log = logging.getLogger(__name__)


def import_sdk():
    try:
        import anthropic
    except ImportError as e:
        raise UsageError("the anthropic package is missing: pip install 'warpsmith[llm]' "
                         "(or pip install 'anthropic>=0.34')") from e
    return anthropic


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None,
                 timeout_s: float = 600.0):
        self.sdk = import_sdk()
        self.model = model
        self.client = self.sdk.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout_s,
                                         max_retries=0)

    def complete(self, request: Request) -> Response:
        start = time.monotonic()
        if request.seed is not None:
            log.debug("anthropic takes no seed; %s is ignored", request.seed)
        # The API draws one answer per call: n choices cost n calls, failing on the first error.
        responses = []
        for _ in range(request.n):
            responses.append(self.one(request))
            if not responses[-1].ok:
                break
        return replace(merge(responses), latency_s=time.monotonic() - start)

    def one(self, request: Request) -> Response:
        try:
            return self.parse(self.client.messages.create(**self.params(request)))
        except self.sdk.AnthropicError as e:
            return self.failed(sdk_error(e, self.sdk))
        except PARSE_ERRORS as e:
            return self.failed(CallError("bad_response", f"unreadable response: {e!r}"))

    def params(self, request: Request) -> dict:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        params = {"model": self.model, "max_tokens": request.max_tokens,
                  "messages": [{"role": m.role, "content": m.content}
                               for m in request.messages if m.role != "system"]}
        if system:
            params["system"] = system
        extra = dict(request.extra_body)
        if request.temperature is not None:
            # Through extra_body: newer SDKs dropped the keyword, the API still takes it.
            extra["temperature"] = request.temperature
        if extra:
            params["extra_body"] = extra
        return params

    def parse(self, raw) -> Response:
        blocks = raw.content or []
        text = "".join(b.text for b in blocks if b.type == "text")
        thinking = "".join(b.thinking for b in blocks if b.type == "thinking")
        choice = Choice(text, thinking, raw.stop_reason or "")
        return Response(self.name, self.model, (choice,), usage(raw.usage),
                        response_id=raw.id or "", served_model=raw.model or "")

    def failed(self, error: CallError) -> Response:
        return Response(self.name, self.model, error=error)


def usage(raw) -> Usage:
    if raw is None:
        return Usage()
    # Anthropic's input_tokens leaves out the cached part; ours counts every prompt token.
    read = getattr(raw, "cache_read_input_tokens", None) or 0
    written = getattr(raw, "cache_creation_input_tokens", None) or 0
    return Usage((raw.input_tokens or 0) + read + written, raw.output_tokens or 0, read)


def merge(responses: list[Response]) -> Response:
    last = responses[-1]
    total = Usage()
    for r in responses:
        total = total + r.usage
    choices = tuple(c for r in responses for c in r.choices)
    return replace(last, choices=choices if last.ok else (), usage=total)
