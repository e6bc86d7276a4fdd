"""docs/benchmarks/library.md's library+tuner table on a GPU, in one resumable command.

1. A bench of the suite with the offline library and its tuners (the knob tuner's --depth
   rounds, then the generic tuner on the best kernel), quick profile, over --executor (local:
   one worker per GPU). An unfinished bench in DIR's store is resumed, not restarted.
2. Each task's best kernel verified once more with --profile thorough, which also times
   torch.compile's max-autotune-no-cudagraphs mode, interleaved with eager, compile (default)
   and the kernel in one process. Verdicts are cached in DIR's store: a rerun skips them.
3. DIR/library-gpu.json (one row per task, rewritten after each) and the Markdown table.

The untuned column is the library's default rendering, the run's first attempt (quick profile).

    PYTHONPATH=src python benchmarks/library_gpu.py --dir /tmp/lib --depth 1
    PYTHONPATH=src python benchmarks/library_gpu.py --dir /tmp/lib --table-only
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
# The verify workers run in an empty cwd: a relative PYTHONPATH=src misses there.
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"),
                                                        os.environ.get("PYTHONPATH")) if p)

from warpsmith.bench import BenchSettings, BenchStore, Options, bench  # noqa: E402
from warpsmith.bench.runner import resume  # noqa: E402
from warpsmith.errors import UsageError  # noqa: E402
from warpsmith.executors import opened  # noqa: E402
from warpsmith.store.runs import RunStore  # noqa: E402
from warpsmith.tasks.suite import resolve_task, suite_root, task_files  # noqa: E402

MAX_AUTOTUNE = "compile:max-autotune-no-cudagraphs"


def main() -> None:
    args = parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    db, out = args.dir / "store.sqlite", args.dir / "library-gpu.json"
    rows = json.loads(out.read_text())["rows"] if out.exists() else []
    if not args.table_only:
        with opened(args.executor) as executor:
            bench_id = run_bench(args, db, executor)
            rows = reverify(args, db, bench_id, executor, rows, out)
    print(table(rows, args.suite))


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", type=Path, required=True, help="store, kernels and results")
    p.add_argument("--suite", default="builtin/level1")
    p.add_argument("--tasks", default=None, help="only these tasks, comma-separated")
    p.add_argument("--depth", type=int, default=1, help="knob-tuner rounds per task (≤3)")
    p.add_argument("--no-tune", action="store_true", help="skip the generic tuner")
    p.add_argument("--executor", default="local")
    p.add_argument("--device", default="cuda")
    p.add_argument("--partial", action="store_true",
                   help="re-verify the items an unfinished bench has done; run no more of it")
    p.add_argument("--table-only", action="store_true", help="print DIR's table, run nothing")
    return p.parse_args()


def run_bench(args, db: Path, executor) -> str:
    store = BenchStore(db)
    benches = store.benches()
    store.close()
    open_ones = [b for b in benches if b.status != "finished"]
    finished = [b for b in benches if b.status == "finished"]

    def progress(p):
        if p.last is not None:
            print(f"bench {p.done}/{p.total} {p.last.task} {p.last.status} "
                  f"({p.elapsed_s:.0f} s)", file=sys.stderr, flush=True)

    if finished:
        return finished[0].id
    if open_ones and args.partial:
        return open_ones[0].id
    if open_ones:
        return resume(open_ones[0].id, db, on_progress=progress, executor=executor).bench_id
    settings = BenchSettings(device=args.device, profile="quick")
    options = Options(depth=args.depth, tune=not args.no_tune)
    only = [n for n in (args.tasks or "").split(",") if n] or None
    return bench(args.suite, "library", settings, options, db=db, executor=executor,
                 on_progress=progress, only=only).bench_id


def reverify(args, db: Path, bench_id: str, executor, rows: list, out: Path) -> list:
    """Each best kernel once more, `executor.slots` at a time (one per GPU)."""
    store = BenchStore(db)
    items = store.items(bench_id)
    store.close()
    done = {r["task"] for r in rows}
    kernels = args.dir / "kernels"
    kernels.mkdir(exist_ok=True)
    lock = threading.Lock()

    def one(item) -> None:
        row = thorough_row(args, db, executor, kernels, item)
        with lock:
            rows.append(row)
            out.write_text(json.dumps({"bench_id": bench_id, "rows": rows}, indent=1))
            print(f"thorough {len(rows)}/{len(items)} {item.task} "
                  f"{row.get('thorough_status')}", file=sys.stderr, flush=True)

    todo = [item for item in items if item.task not in done]
    with ThreadPoolExecutor(max_workers=max(1, executor.slots)) as pool:
        list(pool.map(one, todo))
    order = [item.task for item in items]
    return sorted(rows, key=lambda r: order.index(r["task"]) if r["task"] in order else 0)


def thorough_row(args, db: Path, executor, kernels: Path, item) -> dict:
    row = {"task": item.task, "status": item.status, "note": item.note,
           "untuned_x_eager": untuned(db, item.run_id)}
    if item.status == "passed" and item.source:
        path = kernels / (item.task.replace("/", "_") + ".py")
        path.write_text(item.source)
        v = executor.verify(task_of(args.suite, item.task), path, device=args.device,
                            profile="thorough", store_path=db)
        times = {t.name: t.median_us for t in v.timings}
        row |= {"thorough_status": v.status, "time_us": times.get("candidate"),
                "eager_us": times.get("eager"), "compile_default_us": times.get("compile"),
                "max_autotune_us": times.get(MAX_AUTOTUNE), "floor_us": v.floor_us,
                "reasons": list(v.reasons)}
    return row


def task_of(suite: str, name: str):
    """A bench item's task: a built-in name, or a file of a folder suite."""
    try:
        return resolve_task(name)
    except UsageError:
        files = {n: path for n, _, path in task_files(suite_root(suite))}
        return resolve_task(str(files[name]))


def untuned(db: Path, run_id: str | None) -> float | None:
    """The speedup of the library's default rendering: the run's first attempt."""
    if not run_id:
        return None
    store = RunStore(db)
    try:
        first = next(iter(store.attempts(run_id)), None)
    finally:
        store.close()
    return first.verdict.speedup_vs_eager if first and first.verdict else None


def table(rows: list[dict], suite: str) -> str:
    timed = [r for r in rows if r.get("thorough_status") == "passed" and r.get("time_us")
             and r.get("eager_us") and r.get("compile_default_us") and r.get("floor_us")]
    head = ("| task | eager µs | compile µs | max-autotune µs | library+tuner µs | ×eager | "
            "×compile | ×max-autotune | untuned ×eager | floor: eager | compile | "
            "max-autotune | library |")
    lines = [head, "|" + "---|" * 13]
    for r in timed:
        mat = r.get("max_autotune_us")
        lines.append(
            f"| {r['task']} | {r['eager_us']:.1f} | {r['compile_default_us']:.1f} | "
            f"{_f(mat, '.1f')} | {r['time_us']:.1f} | {r['eager_us'] / r['time_us']:.2f}× | "
            f"{r['compile_default_us'] / r['time_us']:.2f}× | "
            f"{_f(mat / r['time_us'] if mat else None, '.2f')} | "
            f"{_f(r.get('untuned_x_eager'), '.2f')} | {r['floor_us'] / r['eager_us']:.0%} | "
            f"{r['floor_us'] / r['compile_default_us']:.0%} | "
            f"{_f(r['floor_us'] / mat if mat else None, '.0%')} | "
            f"{r['floor_us'] / r['time_us']:.0%} |")
    if timed:
        lines += ["", summary(timed)]
    other = [r for r in rows if r not in timed]
    if other:
        lines += ["", "Not in the table (not covered, not passed, or not timed): " + ", ".join(
            f"{r['task']} ({_why(r)})" for r in other) + "."]
    return f"{len(rows)} tasks of {suite}\n\n" + "\n".join(lines)


def summary(timed: list[dict]) -> str:
    def geo(key):
        values = [r[key] / r["time_us"] for r in timed if r.get(key)]
        return math.exp(statistics.fmean(math.log(v) for v in values)) if values else None

    beats = sum(r["compile_default_us"] > r["time_us"] for r in timed)
    beats_mat = sum(r["max_autotune_us"] > r["time_us"] for r in timed if r.get("max_autotune_us"))
    has_mat = sum(1 for r in timed if r.get("max_autotune_us"))
    floor = statistics.median(r["floor_us"] / r["time_us"] for r in timed)
    return (f"Geometric mean over {len(timed)} tasks: {geo('eager_us'):.2f}× vs eager, "
            f"{geo('compile_default_us'):.2f}× vs torch.compile, "
            f"{_f(geo('max_autotune_us'), '.2f')} vs max-autotune. Beats torch.compile on "
            f"{beats}/{len(timed)}, max-autotune on {beats_mat}/{has_mat}. Median fraction of "
            f"the roofline floor reached by the library+tuner kernel: {floor:.0%}.")


def _why(row: dict) -> str:
    status = row.get("thorough_status") or row["status"]
    return f"{status}, not timed" if status == "passed" else status


def _f(value, spec: str) -> str:
    """'-' for a missing value; a ratio (spec '.2f') gets its ×."""
    return "-" if value is None else format(value, spec) + ("×" if spec == ".2f" else "")


if __name__ == "__main__":
    main()
