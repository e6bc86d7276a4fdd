"""Search runs and their attempts, in the same SQLite file as the verdicts.

An attempt is one LLM answer and what became of it: the prompt, the response and its usage and
cost, the candidate extracted from it, and its verdict, with the attempt it refined (lineage).
Attempts are keyed inside their run by (chain, depth, sample): a resumed run finds the ones
already done under the same key and replays them instead of paying for them again.

An attempt may also carry the hypothesis it tests (the evolve strategy asks for one): the idea,
the speedup the model predicted and the speedup measured, over the parent where the parent was
timed, else over eager PyTorch; a crossover names its second parent too.

Schema changes are additive: a column added later is added, empty, to a database made before
it (`_migrate`), so every existing database stays readable. Rows are read by column name.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..types import Verdict
from .db import connect
from .sqlite import verdict_from_dict, verdict_to_dict

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    task TEXT NOT NULL,
    model TEXT NOT NULL,
    strategy TEXT NOT NULL,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,          -- running, finished, interrupted, budget, failed
    created REAL NOT NULL,
    updated REAL NOT NULL,
    best_attempt INTEGER,
    best_path TEXT
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES runs(id),
    chain INTEGER NOT NULL,
    depth INTEGER NOT NULL,
    sample INTEGER NOT NULL,
    parent_id INTEGER REFERENCES attempts(id),
    status TEXT NOT NULL,          -- a verdict status, or llm_error
    prompt TEXT NOT NULL,          -- JSON list of {role, content}
    response TEXT NOT NULL,
    reasoning TEXT NOT NULL,
    source TEXT,                   -- the candidate extracted from the response
    usage TEXT NOT NULL,           -- JSON: input/output/cached/reasoning tokens
    cost_usd REAL,
    llm_cached INTEGER NOT NULL,
    error TEXT,
    verdict TEXT,                  -- JSON, as the verdict store keeps it
    speedup_vs_eager REAL,
    created REAL NOT NULL,
    idea TEXT,                     -- the hypothesis the attempt tests, as the model stated it
    predicted_gain REAL,           -- the speedup the model predicted for it
    measured_gain REAL,            -- the speedup measured: over the parent if timed, else eager
    co_parent_id INTEGER,          -- a crossover's second parent (attempts.id)
    UNIQUE (run_id, chain, depth, sample)
);
"""

# Columns added after the first release, in the order ALTER TABLE appends them to older files.
ADDED_COLUMNS = (("idea", "TEXT"), ("predicted_gain", "REAL"), ("measured_gain", "REAL"),
                 ("co_parent_id", "INTEGER"))
# An attempt's number is its place in its run (1, 2, …, in the order attempts were made),
# the one number the progress lines, the summary, the written file and `runs show` give it;
# the id counts across every run in the file. Ids only grow, so a number never changes.
NUMBER = ("(SELECT COUNT(*) FROM attempts AS earlier WHERE earlier.run_id = attempts.run_id "
          "AND earlier.id <= attempts.id)")
COLUMNS = ("id, run_id, chain, depth, sample, parent_id, status, prompt, response, reasoning, "
           "source, usage, cost_usd, llm_cached, error, verdict, idea, predicted_gain, "
           f"measured_gain, co_parent_id, {NUMBER}")


@dataclass
class Attempt:
    run_id: str
    chain: int
    depth: int
    sample: int
    status: str
    prompt: list[dict]
    response: str = ""
    reasoning: str = ""
    source: str | None = None
    usage: dict = field(default_factory=dict)
    cost_usd: float | None = None
    llm_cached: bool = False
    error: str | None = None
    verdict: Verdict | None = None
    parent_id: int | None = None
    id: int | None = None
    replayed: bool = False  # found in the store on resume, not made again
    idea: str | None = None
    predicted_gain: float | None = None
    measured_gain: float | None = None
    co_parent_id: int | None = None
    number: int | None = None  # its place in the run, from 1 (set once stored)

    @property
    def passed(self) -> bool:
        return self.verdict is not None and self.verdict.passed


@dataclass(frozen=True)
class RunRecord:
    id: str
    task: str
    model: str
    strategy: str
    settings: dict
    status: str
    created: float
    updated: float
    best_attempt: int | None
    best_path: str | None


class RunStore:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.db = connect(self.path, SCHEMA)
        _migrate(self.db)

    def new_run(self, task: str, model: str, strategy: str, settings: dict) -> str:
        run_id = time.strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)
        now = time.time()
        with self.db:
            self.db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, 'running', ?, ?, NULL, NULL)",
                            (run_id, task, model, strategy, json.dumps(settings), now, now))
        return run_id

    def run(self, run_id: str) -> RunRecord | None:
        row = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _run_record(row) if row else None

    def runs(self, limit: int = 50) -> list[RunRecord]:
        rows = self.db.execute("SELECT * FROM runs ORDER BY created DESC LIMIT ?", (limit,))
        return [_run_record(r) for r in rows]

    def set_status(self, run_id: str, status: str, best: Attempt | None = None,
                   best_path: str | None = None) -> None:
        with self.db:
            self.db.execute("UPDATE runs SET status = ?, updated = ?, best_attempt = ?, "
                            "best_path = ? WHERE id = ?",
                            (status, time.time(), best.id if best else None, best_path, run_id))

    def find(self, run_id: str, chain: int, depth: int, sample: int) -> Attempt | None:
        row = self.db.execute(
            f"SELECT {COLUMNS} FROM attempts WHERE run_id = ? AND chain = ? AND depth = ? "
            "AND sample = ?",
            (run_id, chain, depth, sample)).fetchone()
        return _attempt(row) if row else None

    def attempts(self, run_id: str) -> list[Attempt]:
        rows = self.db.execute(f"SELECT {COLUMNS} FROM attempts WHERE run_id = ? ORDER BY id",
                               (run_id,))
        return [_attempt(r) for r in rows]

    def add(self, a: Attempt) -> Attempt:
        verdict = json.dumps(verdict_to_dict(a.verdict)) if a.verdict else None
        speedup = a.verdict.speedup_vs_eager if a.verdict else None
        with self.db:
            cursor = self.db.execute(
                "INSERT INTO attempts (run_id, chain, depth, sample, parent_id, status, prompt, "
                "response, reasoning, source, usage, cost_usd, llm_cached, error, verdict, "
                "speedup_vs_eager, created, idea, predicted_gain, measured_gain, co_parent_id) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (a.run_id, a.chain, a.depth, a.sample, a.parent_id, a.status,
                 json.dumps(a.prompt), a.response, a.reasoning, a.source, json.dumps(a.usage),
                 a.cost_usd, int(a.llm_cached), a.error, verdict, speedup, time.time(), a.idea,
                 a.predicted_gain, a.measured_gain, a.co_parent_id))
        a.id = cursor.lastrowid
        a.number = self.db.execute(f"SELECT {NUMBER} FROM attempts WHERE id = ?",
                                   (a.id,)).fetchone()[0]
        return a

    def set_hypothesis(self, a: Attempt) -> None:
        """Record a stored attempt's idea, predicted and measured gain and second parent: they
        are read from the answer after the attempt is made, so they come as a second write."""
        with self.db:
            self.db.execute("UPDATE attempts SET idea = ?, predicted_gain = ?, measured_gain = ?, "
                            "co_parent_id = ? WHERE id = ?",
                            (a.idea, a.predicted_gain, a.measured_gain, a.co_parent_id, a.id))

    def passed_sources(self, task: str) -> list[tuple[str, int, str, str]]:
        """(run id, attempt number, source, verdict cache key) of the task's passed
        attempts."""
        return self.db.execute(
            f"SELECT run_id, {NUMBER}, source, json_extract(verdict, '$.cache_key') FROM attempts "
            "WHERE status = 'passed' AND source IS NOT NULL "
            "AND json_extract(verdict, '$.task') = ? ORDER BY id", (task,)).fetchall()

    def close(self) -> None:
        self.db.close()


def _run_record(row) -> RunRecord:
    return RunRecord(row[0], row[1], row[2], row[3], json.loads(row[4]), *row[5:10])


def _migrate(db: sqlite3.Connection) -> None:
    have = {row[1] for row in db.execute("PRAGMA table_info(attempts)")}
    for name, kind in ADDED_COLUMNS:
        if name in have:
            continue
        try:
            with db:
                db.execute(f"ALTER TABLE attempts ADD COLUMN {name} {kind}")
        except sqlite3.OperationalError as e:  # another process migrated it first
            if "duplicate column" not in str(e):
                raise


def _attempt(row) -> Attempt:
    (id_, run_id, chain, depth, sample, parent_id, status, prompt, response, reasoning, source,
     usage, cost, cached, error, verdict, idea, predicted, measured, co_parent, number) = row
    return Attempt(run_id, chain, depth, sample, status, json.loads(prompt), response, reasoning,
                   source, json.loads(usage), cost, bool(cached), error,
                   verdict_from_dict(json.loads(verdict)) if verdict else None, parent_id, id_,
                   idea=idea, predicted_gain=predicted, measured_gain=measured,
                   co_parent_id=co_parent, number=number)
