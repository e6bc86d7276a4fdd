"""Retries with exponential backoff and jitter, honouring Retry-After; and turning an SDK's
exceptions into CallError data. The SDKs' own retries are switched off (max_retries=0) so
these are the only ones and every attempt is counted."""

from __future__ import annotations

import dataclasses
import email.utils
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from .base import CallError, Provider, Request, Response, Usage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 5
    backoff_s: float = 1.0  # the first delay; doubled after each failure
    backoff_max_s: float = 60.0
    retry_after_max_s: float = 300.0  # a server asking for longer is answered with this

    def delay(self, retry: int, retry_after_s: float | None, rand: float) -> float:
        """Seconds to wait before retry number `retry` (0-based); rand is uniform in [0, 1)."""
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), self.retry_after_max_s)
        # Half fixed, half random: many workers that failed together do not retry together.
        ceiling = min(self.backoff_max_s, self.backoff_s * 2 ** retry)
        return ceiling * (0.5 + 0.5 * rand)


class Retrying:
    def __init__(self, inner: Provider, policy: RetryPolicy,
                 sleep: Callable[[float], None] = time.sleep):
        self.inner = inner
        self.policy = policy
        self.sleep = sleep

    def complete(self, request: Request) -> Response:
        start, spent = time.monotonic(), Usage()
        for attempt in range(self.policy.max_retries + 1):
            response = self.inner.complete(request)
            # A failed try can still have used tokens (one of n Anthropic draws failing).
            spent = spent + response.usage
            response = dataclasses.replace(response, usage=spent)
            if response.ok or not response.error.retryable:
                break
            if attempt == self.policy.max_retries:
                return _gave_up(response, attempt + 1, time.monotonic() - start)
            delay = self.policy.delay(attempt, response.error.retry_after_s, random.random())
            log.warning("%s %s: %s; retry %d/%d in %.1f s", response.provider, response.model,
                        response.error.message, attempt + 1, self.policy.max_retries, delay)
            self.sleep(delay)
        return dataclasses.replace(response, attempts=attempt + 1,
                                   latency_s=time.monotonic() - start)


def _gave_up(response: Response, attempts: int, elapsed: float) -> Response:
    error = dataclasses.replace(
        response.error, message=f"gave up after {attempts} attempts: {response.error.message}")
    return dataclasses.replace(response, error=error, attempts=attempts, latency_s=elapsed)


def sdk_error(exc: Exception, sdk) -> CallError:
    """An exception from the `openai` or `anthropic` SDK (they share their error classes'
    names and shapes) as data."""
    if isinstance(exc, sdk.APITimeoutError):  # before APIConnectionError, its base
        return CallError("timeout", f"timed out: {exc}")
    if isinstance(exc, sdk.APIConnectionError):
        return CallError("connection", f"connection failed: {exc}")
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        return CallError(status_kind(status), f"HTTP {status}: {_brief(exc)}", status,
                         retry_after(exc.response.headers))
    return CallError("bad_response", f"unreadable response: {type(exc).__name__}: {exc}")


def status_kind(status: int) -> str:
    if status == 429:
        return "rate_limit"
    if status == 408:
        return "timeout"
    if status >= 500:  # 529 is Anthropic's "overloaded"
        return "server"
    if status in (401, 403):
        return "auth"
    return "bad_request"


def retry_after(headers) -> float | None:
    """Seconds from `retry-after-ms` (OpenAI, Anthropic) or `retry-after` (seconds or an
    HTTP date); None when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return float(millis) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        return _seconds_until(value)


def _seconds_until(http_date: str) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(http_date)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _brief(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return message if len(message) <= 500 else message[:500] + "…"
