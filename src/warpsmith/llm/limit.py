"""A cap on the calls one provider has in flight at once: vendors rate-limit by concurrent
requests and tokens per minute, and a local server slows everyone down past its batch size."""

from __future__ import annotations

import threading

from .base import Provider, Request, Response


class Limited:
    def __init__(self, inner: Provider, limit: int):
        if limit < 1:
            raise ValueError(f"a concurrency limit must be at least 1, not {limit}")
        self.inner = inner
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit)

    def complete(self, request: Request) -> Response:
        # Held through the retry sleeps too: a rate-limited vendor gets fewer calls, not more.
        with self._slots:
            return self.inner.complete(request)
