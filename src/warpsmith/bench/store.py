"""Benchmark runs, in the same SQLite file as the verdicts and the search runs.

A bench is a suite × a generator × K samples; each (task, sample) is an item, committed in its
own transaction as soon as its verdict exists. Re-running the bench reads the committed items
back and does only the rest, so a crash or a kill loses at most the item in progress. An item
whose generator is itself a resumable search (llm) records that search's run id while it
works, so a killed item resumes its search instead of starting it again.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..store.db import connect
from ..store.sqlite import verdict_from_dict, verdict_to_dict
from ..types import Verdict, readable_task_name

SCHEMA = """
CREATE TABLE IF NOT EXISTS benches (
    id TEXT PRIMARY KEY,
    suite TEXT NOT NULL,
    generator TEXT NOT NULL,
    settings TEXT NOT NULL,        -- JSON: samples, device, profile, budget, options, tasks
    status TEXT NOT NULL,          -- running, finished, interrupted, budget
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS bench_items (
    bench_id TEXT NOT NULL REFERENCES benches(id),
    task TEXT NOT NULL,
    sample INTEGER NOT NULL,
    level TEXT,
    status TEXT NOT NULL,          -- a verdict status, or no_candidate, llm_error
    candidate TEXT,                -- the candidate file's path
    source TEXT,                   -- its text, so the report outlives the file
    verdict TEXT,                  -- JSON, as the verdict store keeps it
    run_id TEXT,                   -- the optimize run that produced it (llm generators)
    cost_usd REAL,                 -- NULL: the generator pays no one (a folder of files)
    spend TEXT NOT NULL,           -- JSON: calls, tokens, usd, unpriced_calls, gpu_s
    seconds REAL NOT NULL,
    note TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (bench_id, task, sample)
);
CREATE TABLE IF NOT EXISTS bench_pending (
    bench_id TEXT NOT NULL,
    task TEXT NOT NULL,
    sample INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    PRIMARY KEY (bench_id, task, sample)
);
"""


@dataclass(frozen=True)
class Item:
    """One (task, sample) of a bench and what became of it."""

    task: str
    sample: int
    status: str
    level: str | None = None
    verdict: Verdict | None = None
    candidate: str | None = None
    source: str | None = None
    run_id: str | None = None
    cost_usd: float | None = None
    spend: dict = field(default_factory=dict)
    seconds: float = 0.0
    note: str = ""
    created: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def title(self) -> str:
        return readable_task_name(self.task)


@dataclass(frozen=True)
class BenchRecord:
    id: str
    suite: str
    generator: str
    settings: dict
    status: str
    created: float
    updated: float

    @property
    def total_items(self) -> int:
        return len(self.settings["tasks"]) * self.settings["samples"]


class BenchStore:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.db = connect(self.path, SCHEMA)

    def new_bench(self, suite: str, generator: str, settings: dict) -> str:
        bench_id = time.strftime("bench-%Y%m%d-%H%M%S-") + secrets.token_hex(3)
        now = time.time()
        with self.db:
            self.db.execute("INSERT INTO benches VALUES (?, ?, ?, ?, 'running', ?, ?)",
                            (bench_id, suite, generator, json.dumps(settings), now, now))
        return bench_id

    def bench(self, bench_id: str) -> BenchRecord | None:
        row = self.db.execute("SELECT * FROM benches WHERE id = ?", (bench_id,)).fetchone()
        return _record(row) if row else None

    def benches(self, limit: int = 50) -> list[BenchRecord]:
        rows = self.db.execute("SELECT * FROM benches ORDER BY created DESC LIMIT ?", (limit,))
        return [_record(r) for r in rows]

    def set_status(self, bench_id: str, status: str) -> None:
        with self.db:
            self.db.execute("UPDATE benches SET status = ?, updated = ? WHERE id = ?",
                            (status, time.time(), bench_id))

    def set_budget(self, bench_id: str, budget: dict) -> None:
        """A resume's --budget replaces the stored one, so the report names the limit the
        bench last ran under (the one a `budget` status refers to)."""
        with self.db:
            row = self.db.execute("SELECT settings FROM benches WHERE id = ?",
                                  (bench_id,)).fetchone()
            settings = json.loads(row[0]) | {"budget": budget}
            self.db.execute("UPDATE benches SET settings = ? WHERE id = ?",
                            (json.dumps(settings), bench_id))

    def items(self, bench_id: str) -> list[Item]:
        rows = self.db.execute("SELECT * FROM bench_items WHERE bench_id = ? ORDER BY created",
                               (bench_id,))
        return [_item(r) for r in rows]

    def add(self, bench_id: str, item: Item) -> Item:
        """Commit one item and forget its pending search, in one transaction. A second add of
        the same (task, sample) keeps the first: an item is never done twice."""
        verdict = json.dumps(verdict_to_dict(item.verdict)) if item.verdict else None
        created = time.time()
        with self.db:
            self.db.execute(
                "INSERT OR IGNORE INTO bench_items VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (bench_id, item.task, item.sample, item.level, item.status, item.candidate,
                 item.source, verdict, item.run_id, item.cost_usd, json.dumps(item.spend),
                 item.seconds, item.note, created))
            self.db.execute("DELETE FROM bench_pending WHERE bench_id = ? AND task = ? AND "
                            "sample = ?", (bench_id, item.task, item.sample))
            self.db.execute("UPDATE benches SET updated = ? WHERE id = ?", (created, bench_id))
        return item

    def pending(self, bench_id: str, task: str, sample: int) -> str | None:
        row = self.db.execute("SELECT run_id FROM bench_pending WHERE bench_id = ? AND task = ? "
                              "AND sample = ?", (bench_id, task, sample)).fetchone()
        return row[0] if row else None

    def set_pending(self, bench_id: str, task: str, sample: int, run_id: str) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO bench_pending VALUES (?, ?, ?, ?)",
                            (bench_id, task, sample, run_id))

    def close(self) -> None:
        self.db.close()


def _record(row) -> BenchRecord:
    id_, suite, generator, settings, status, created, updated = row
    return BenchRecord(id_, suite, generator, json.loads(settings), status, created, updated)


def _item(row) -> Item:
    (_bench, task, sample, level, status, candidate, source, verdict, run_id, cost, spend,
     seconds, note, created) = row
    return Item(task, sample, status, level,
                verdict_from_dict(json.loads(verdict)) if verdict else None, candidate, source,
                run_id, cost, json.loads(spend), seconds, note, created)
