"""Opening the store's SQLite file, the same way for every table set (verdicts, runs,
benches): WAL, so a crash mid-write loses nothing already committed, and one connection
shared safely by worker threads (a search's parallel chains record attempts at once)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path


class _Shared(sqlite3.Connection):
    """Each statement, and each `with db:` transaction as a whole, holds one lock: two threads
    interleaving on one connection otherwise commit each other's transactions (seen: "cannot
    commit - no transaction is active")."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._lock = threading.RLock()

    def execute(self, *args, **kwargs):
        with self._lock:
            return super().execute(*args, **kwargs)

    def __enter__(self):
        self._lock.acquire()
        return super().__enter__()

    def __exit__(self, *exc):
        try:
            return super().__exit__(*exc)
        finally:
            self._lock.release()


def connect(path: Path, schema: str) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, check_same_thread=False, factory=_Shared)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(schema)
    return db
