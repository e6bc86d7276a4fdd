"""Verdicts in a SQLite file, keyed by the content hash of task, candidate, verifier and
environment. WAL mode so a crash mid-write loses nothing already committed."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

from ..types import CaseResult, Timing, Verdict
from .db import connect

SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY,
    task TEXT NOT NULL,
    candidate TEXT NOT NULL,
    status TEXT NOT NULL,
    speedup_vs_eager REAL,
    created REAL NOT NULL,
    verdict TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS verdicts_task ON verdicts(task, status);
"""


class VerdictStore:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.db = connect(self.path, SCHEMA)

    def get(self, key: str) -> Verdict | None:
        row = self.db.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        return verdict_from_dict(json.loads(row[0])) if row else None

    def put(self, verdict: Verdict) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?)",
                (verdict.cache_key, verdict.task, verdict.candidate, verdict.status,
                 verdict.speedup_vs_eager, time.time(), json.dumps(verdict_to_dict(verdict))))

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]

    def passed(self, task: str, newest_first: bool = False) -> list[Verdict]:
        """The task's passed verdicts, fastest (vs eager) first, untimed ones last; or the
        most recently stored first."""
        order = ("created DESC, key" if newest_first else
                 "speedup_vs_eager IS NULL, speedup_vs_eager DESC, created DESC")
        rows = self.db.execute(
            f"SELECT verdict FROM verdicts WHERE task = ? AND status = 'passed' ORDER BY {order}",
            (task,)).fetchall()
        return [verdict_from_dict(json.loads(text)) for (text,) in rows]

    def close(self) -> None:
        self.db.close()


def verdict_to_dict(verdict: Verdict) -> dict:
    return dataclasses.asdict(verdict) | {"passed": verdict.passed}


def verdict_from_dict(data: dict) -> Verdict:
    fields = {f.name for f in dataclasses.fields(Verdict)}
    data = {k: v for k, v in data.items() if k in fields}
    data["cases"] = tuple(CaseResult(**c) for c in data.get("cases", ()))
    data["timings"] = tuple(Timing(**t) for t in data.get("timings", ()))
    for key in ("reasons", "rules", "warnings", "shapes_checked", "shapes_skipped",
                "kernels_launched"):
        data[key] = tuple(data.get(key, ()))
    return Verdict(**data)
