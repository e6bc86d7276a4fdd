"""Answers kept in a SQLite file, keyed by everything that shapes an answer, so a re-run or a
resumed search pays nothing for a prompt it already sent. Only successful answers are kept:
a failure is worth asking again."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path

from .base import Provider, Request, Response, response_from_dict, response_to_dict

log = logging.getLogger(__name__)

KEY_VERSION = 1  # bump when the key's contents change, so old entries simply miss

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    created REAL NOT NULL,
    response TEXT NOT NULL
);
"""


def request_key(provider: str, model: str, request: Request) -> str:
    """`provider` names the endpoint too (a compatible server's URL): two servers serving a
    model of one name need not answer alike."""
    body = {"v": KEY_VERSION, "provider": provider, "model": model,
            "messages": [[m.role, m.content] for m in request.messages],
            "temperature": request.temperature, "max_tokens": request.max_tokens,
            "seed": request.seed, "n": request.n, "sample": request.sample,
            "extra_body": request.extra_body}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class ResponseCache:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by the provider's worker threads, serialised by a lock.
        self._lock = threading.Lock()
        self.db = sqlite3.connect(self.path, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    def get(self, key: str) -> Response | None:
        with self._lock:
            row = self.db.execute("SELECT response FROM responses WHERE key = ?",
                                  (key,)).fetchone()
        return response_from_dict(json.loads(row[0])) if row else None

    def put(self, key: str, response: Response) -> None:
        data = json.dumps(response_to_dict(response))
        with self._lock, self.db:
            self.db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)",
                            (key, response.provider, response.model, time.time(), data))

    def count(self) -> int:
        with self._lock:
            return self.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self.db.close()


class Cached:
    def __init__(self, inner: Provider, cache: ResponseCache, provider: str, model: str):
        self.inner = inner
        self.cache = cache
        self.provider = provider
        self.model = model

    def complete(self, request: Request) -> Response:
        key = request_key(self.provider, self.model, request)
        hit = self.cache.get(key)
        if hit is not None:
            log.debug("cache hit %s for %s %s", key[:12], self.provider, self.model)
            # Usage stays as first paid, for records; a hit itself costs nothing.
            return dataclasses.replace(hit, cached=True, cost_usd=0.0, attempts=0,
                                       latency_s=0.0)
        response = self.inner.complete(request)
        if response.ok:
            self.cache.put(key, response)
        return response
