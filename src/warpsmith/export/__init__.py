"""Datasets from stored optimize runs: `export(run_ids or bench_id, format, out)`.

    sft    one record per verified kernel: task, prompt, response, reasoning, source, verdict
    rl     one record per trajectory: turns in order, each with its reward, and the outcome
    pairs  preference pairs for one task: a verified kernel over a failed or slower one
    torch-op  one run's winning verified kernel as a standalone drop-in module (torch_op.py)

docs/datasets.md documents the schemas, the reward shaping and the pair rule.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO

from ..bench.store import BenchStore
from ..config import db_path
from ..errors import UsageError
from ..store.runs import RunStore
from .records import BUILDERS, NO_PROMPT, PAIRS, RL, SFT, RunData, task_info
from .torch_op import TORCH_OP, render

FORMATS = (*BUILDERS, TORCH_OP)

__all__ = ["FORMATS", "NO_PROMPT", "PAIRS", "RL", "SFT", "TORCH_OP", "export", "export_torch_op",
           "load_runs", "records", "write"]


def load_runs(run_ids: Sequence[str] = (), bench_id: str | None = None,
              db: Path | str | None = None) -> list[RunData]:
    """The runs named, or the optimize runs a bench's items came from, with their attempts.
    An unknown run or bench, or a bench with no optimize runs, is a UsageError."""
    path = Path(db) if db else db_path()
    if bench_id is not None:
        run_ids = _bench_runs(path, bench_id)
    if not run_ids:
        raise UsageError("name at least one run id, or --bench BENCH_ID")
    store = RunStore(path)
    try:
        return [_run_data(store, run_id) for run_id in dict.fromkeys(run_ids)]
    finally:
        store.close()


def records(fmt: str, runs: Iterable[RunData], skipped: Counter | None = None) -> list[dict]:
    """skipped, when given, counts the records left out and why (NO_PROMPT)."""
    if fmt not in BUILDERS:
        raise UsageError(f"unknown format {fmt!r} (valid: {', '.join(FORMATS)})")
    return list(BUILDERS[fmt](runs, skipped))


def write(rows: list[dict], out: Path | str | IO[str]) -> None:
    """JSON Lines, or Parquet when `out` is a path ending in .parquet (needs pyarrow)."""
    if isinstance(out, str | Path) and str(out).endswith(".parquet"):
        _write_parquet(rows, Path(out))
    elif isinstance(out, str | Path):
        with open(out, "w") as f:
            _write_jsonl(rows, f)
    else:
        _write_jsonl(rows, out)


def export(run_ids: Sequence[str] = (), fmt: str = "sft", out: Path | str | IO[str] = "-",
           *, bench_id: str | None = None, db: Path | str | None = None,
           skipped: Counter | None = None) -> int:
    """Write the `fmt` records of the runs (or the bench's runs) to `out`; their count.
    `skipped` counts the records left out (no prompt). torch-op writes one module for one
    run and counts 1."""
    if fmt == TORCH_OP:
        if bench_id is not None or len(run_ids) != 1:
            raise UsageError("--format torch-op exports exactly one run id")
        export_torch_op(run_ids[0], out, db=db)
        return 1
    if fmt not in BUILDERS:  # before any work
        raise UsageError(f"unknown format {fmt!r} (valid: {', '.join(FORMATS)})")
    rows = records(fmt, load_runs(run_ids, bench_id, db), skipped)
    write(rows, out)
    return len(rows)


def export_torch_op(run_id: str, out: Path | str | IO[str],
                    db: Path | str | None = None) -> str:
    """Write the run's winning verified kernel as a drop-in torch op module; its text.
    A run with no verified attempt is a UsageError."""
    [data] = load_runs([run_id], db=db)
    text = render(data)
    if isinstance(out, str | Path):
        Path(out).write_text(text)
    else:
        out.write(text)
    return text


def _bench_runs(path: Path, bench_id: str) -> list[str]:
    store = BenchStore(path)
    try:
        if store.bench(bench_id) is None:
            raise UsageError(f"no bench {bench_id!r} (see `warpsmith report`)")
        run_ids = [item.run_id for item in store.items(bench_id) if item.run_id]
    finally:
        store.close()
    if not run_ids:
        raise UsageError(f"bench {bench_id!r} has no optimize runs to export: only llm "
                         "generators record prompts and responses")
    return run_ids


def _run_data(store: RunStore, run_id: str) -> RunData:
    run = store.run(run_id)
    if run is None:
        raise UsageError(f"no run {run_id!r} (see `warpsmith runs list`)")
    attempts = tuple(store.attempts(run_id))
    return RunData(run, task_info(run, attempts), attempts)


def _write_jsonl(rows: list[dict], f: IO[str]) -> None:
    for row in rows:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_parquet(rows: list[dict], path: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError("writing .parquet needs pyarrow: pip install pyarrow "
                         "(or write .jsonl)") from None
    pq.write_table(pa.Table.from_pylist(rows), path)
