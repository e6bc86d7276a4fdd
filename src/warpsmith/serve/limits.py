"""The reward service's limits on what one client can ask of it: the body size, checked
before any of it is parsed, and the requests one client may have in flight."""

from __future__ import annotations

import contextlib
import threading

from fastapi import HTTPException
from starlette.responses import JSONResponse


class BodyLimit:
    """413 for a body over the limit, before any of it is parsed: by Content-Length when the
    client declares one, else by counting the streamed (chunked) bytes as they arrive."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            return await self._refuse(scope, receive, send)
        messages, size = [], 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.limit:
                return await self._refuse(scope, receive, send)
            if not message.get("more_body", False):
                break
        replay = iter(messages)

        async def replayed():
            return next(replay, None) or await receive()

        await self.app(scope, replayed, send)

    async def _refuse(self, scope, receive, send) -> None:
        response = JSONResponse({"detail": f"request body over the {self.limit}-byte limit"},
                                status_code=413)
        await response(scope, receive, send)


def _content_length(scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server rejects it; if not, the counting catches a big body
    return None


class ClientLimiter:
    def __init__(self, limit: int):
        self.limit = limit
        self.active: dict[str, int] = {}
        self.lock = threading.Lock()

    @contextlib.contextmanager
    def hold(self, client: str):
        with self.lock:
            if self.active.get(client, 0) >= self.limit:
                raise HTTPException(429, f"this client already has {self.limit} request(s) in "
                                    "flight: wait for one to finish", {"Retry-After": "1"})
            self.active[client] = self.active.get(client, 0) + 1
        try:
            yield
        finally:
            with self.lock:
                self.active[client] -= 1
                if not self.active[client]:
                    del self.active[client]
