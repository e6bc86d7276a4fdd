"""OpenAI's chat-completions API through the official SDK; with a base URL, any server that
speaks it (vLLM, SGLang, Ollama, llama.cpp, DeepSeek, OpenRouter)."""

from __future__ import annotations

import time
from dataclasses import replace

from ..errors import UsageError
from .base import CallError, Choice, Request, Response, Usage
from .retry import sdk_error

PARSE_ERRORS = (AttributeError, TypeError, KeyError, IndexError, ValueError)


def import_sdk():
    try:
        import openai
    except ImportError as e:
        raise UsageError("the openai package is missing: pip install 'warpsmith[llm]' "
                         "(or pip install 'openai>=1.45')") from e
    return openai


class OpenAIProvider:
    def __init__(self, model: str, *, api_key: str, base_url: str | None = None,
                 timeout_s: float = 600.0, name: str = "openai",
                 token_param: str = "max_completion_tokens"):
        self.sdk = import_sdk()
        self.model = model
        self.name = name
        # OpenAI's reasoning models refuse max_tokens; many compatible servers know only it.
        self.token_param = token_param
        self.client = self.sdk.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s,
                                      max_retries=0)

    def complete(self, request: Request) -> Response:
        start = time.monotonic()
        try:
            raw = self.client.chat.completions.create(**self.params(request))
            response = self.parse(raw)
        except self.sdk.OpenAIError as e:
            response = self.failed(sdk_error(e, self.sdk))
        except PARSE_ERRORS as e:  # a body that is not JSON, or JSON of another shape
            response = self.failed(CallError("bad_response", f"unreadable response: {e!r}"))
        return replace(response, latency_s=time.monotonic() - start)

    def params(self, request: Request) -> dict:
        params = {"model": self.model, self.token_param: request.max_tokens,
                  "messages": [{"role": m.role, "content": m.content}
                               for m in request.messages]}
        if request.n != 1:  # some compatible servers reject the field even when it is 1
            params["n"] = request.n
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if request.seed is not None:
            params["seed"] = request.seed
        if request.extra_body:
            params["extra_body"] = dict(request.extra_body)
        return params

    def parse(self, raw) -> Response:
        if not raw.choices:
            return self.failed(CallError("bad_response", "the response has no choices"))
        return Response(self.name, self.model, tuple(_choice(c) for c in raw.choices),
                        usage(raw.usage), response_id=raw.id or "",
                        served_model=raw.model or "")

    def failed(self, error: CallError) -> Response:
        return Response(self.name, self.model, error=error)


def _choice(raw) -> Choice:
    message = raw.message
    # vLLM, SGLang and DeepSeek return the thinking as `reasoning_content`, OpenRouter and
    # newer vLLM as `reasoning`; neither is in the SDK's schema, so read them as extras.
    reasoning = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
    return Choice(message.content or "", reasoning if isinstance(reasoning, str) else "",
                  raw.finish_reason or "")


def usage(raw) -> Usage:
    if raw is None:  # some compatible servers omit usage
        return Usage()
    prompt_details = getattr(raw, "prompt_tokens_details", None)
    output_details = getattr(raw, "completion_tokens_details", None)
    return Usage(raw.prompt_tokens or 0, raw.completion_tokens or 0,
                 getattr(prompt_details, "cached_tokens", None) or 0,
                 getattr(output_details, "reasoning_tokens", None) or 0)
