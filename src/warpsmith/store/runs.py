"""Search runs and their attempts, in the same SQLite file as the verdicts.

An attempt is one LLM answer and what became of it: the prompt, the response and its usage and
cost, the candidate extracted from it, and its verdict, with the attempt it refined (lineage).
Attempts are keyed inside their run by (chain, depth, sample): a resumed run finds the ones
already done under the same key and replays them instead of paying for them again.
"""

from __future__ import annotations

import json
import secrets
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
    UNIQUE (run_id, chain, depth, sample)
);
"""


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
            "SELECT * FROM attempts WHERE run_id = ? AND chain = ? AND depth = ? AND sample = ?",
            (run_id, chain, depth, sample)).fetchone()
        return _attempt(row) if row else None

    def attempts(self, run_id: str) -> list[Attempt]:
        rows = self.db.execute("SELECT * FROM attempts WHERE run_id = ? ORDER BY id", (run_id,))
        return [_attempt(r) for r in rows]

    def add(self, a: Attempt) -> Attempt:
        verdict = json.dumps(verdict_to_dict(a.verdict)) if a.verdict else None
        speedup = a.verdict.speedup_vs_eager if a.verdict else None
        with self.db:
            cursor = self.db.execute(
                "INSERT INTO attempts (run_id, chain, depth, sample, parent_id, status, prompt, "
                "response, reasoning, source, usage, cost_usd, llm_cached, error, verdict, "
                "speedup_vs_eager, created) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (a.run_id, a.chain, a.depth, a.sample, a.parent_id, a.status,
                 json.dumps(a.prompt), a.response, a.reasoning, a.source, json.dumps(a.usage),
                 a.cost_usd, int(a.llm_cached), a.error, verdict, speedup, time.time()))
        a.id = cursor.lastrowid
        return a

    def close(self) -> None:
        self.db.close()


def _run_record(row) -> RunRecord:
    return RunRecord(row[0], row[1], row[2], row[3], json.loads(row[4]), *row[5:10])


def _attempt(row) -> Attempt:
    (id_, run_id, chain, depth, sample, parent_id, status, prompt, response, reasoning, source,
     usage, cost, cached, error, verdict, _speedup, _created) = row
    return Attempt(run_id, chain, depth, sample, status, json.loads(prompt), response, reasoning,
                   source, json.loads(usage), cost, bool(cached), error,
                   verdict_from_dict(json.loads(verdict)) if verdict else None, parent_id, id_)
