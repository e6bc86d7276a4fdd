"""Opening the store's SQLite file, the same way for every table set (verdicts, runs,
benches): WAL, so a crash mid-write loses nothing already committed, and one connection
shared safely by worker threads (a search's parallel chains record attempts at once)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from ..errors import UsageError


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
    """The store at `path`, made if new. A folder that cannot be made or a file that is not
    SQLite is the user's to fix (UsageError, one line from the CLI), not a traceback."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot make the store's folder {path.parent}: {_why(path.parent, e)};"
                         " point --db, $WARPSMITH_DB or $WARPSMITH_HOME somewhere writable"
                         ) from None
    try:
        db = sqlite3.connect(path, check_same_thread=False, factory=_Shared)
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(schema)
    except sqlite3.DatabaseError as e:
        raise UsageError(f"{path} cannot be the store ({e}): give --db (or $WARPSMITH_DB) "
                         "a new file or an existing warpsmith store") from None
    return db


def _why(folder: Path, e: OSError) -> str:
    # mkdir says "File exists" or "Not a directory" when a file is in the way: name the file
    file = next((f for f in (folder, *folder.parents) if f.exists() and not f.is_dir()), None)
    return f"{file} is a file" if file else (e.strerror or str(e))
