"""Each timed verdict's two clocks and the worker's account of a block (environment.clock,
docs/verifier.md), one JSON line per verdict, from a store:

    python3 benchmarks/clock_phases.py OUT/kb.sqlite > docs/benchmarks/raw/clock-….jsonl

`gap` is the trusted clock over the worker's own CUDA-event clock, less 1 (what the trusted
side's measurement adds per call, as a fraction)."""

from __future__ import annotations

import json
import sqlite3
import sys


def rows(db: str):
    with sqlite3.connect(db) as conn:
        for task, status, verdict in conn.execute("select task, status, verdict from verdicts"):
            clock = (json.loads(verdict).get("environment") or {}).get("clock")
            if clock and clock.get("in_process_us"):
                gap = clock["trusted_us"] / clock["in_process_us"] - 1
                yield {"task": task, "status": status, "gap": round(gap, 4), **clock}


if __name__ == "__main__":
    for row in rows(sys.argv[1]):
        print(json.dumps(row))
