"""Opening the store's SQLite file, the same way for every table set (verdicts, runs,
benches): WAL, so a crash mid-write loses nothing already committed, and usable from worker
threads (sqlite3 serialises access to one connection; every write is one short transaction)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def connect(path: Path, schema: str) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(schema)
    return db
