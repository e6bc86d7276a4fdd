"""Executor scaling on one machine: the same bench with a local executor on one GPU, then on
every GPU (and with --ray, a local Ray instance with every GPU). Records wall time, items per
minute and whether each task's verdict status agrees between runs; writes FILE (JSON) and
prints a Markdown table.

Every run starts cold and alone: a fresh store (no verdict is served from a cache) and fresh
Triton and Inductor caches (a later run must not reuse what an earlier one compiled).

    PYTHONPATH=src python benchmarks/scale_gpu.py --out scale.json
    PYTHONPATH=src python benchmarks/scale_gpu.py --out scale.json --tasks 8 --ray
    PYTHONPATH=src python benchmarks/scale_gpu.py --out cpu.json --device cpu --tasks 2
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import torch  # noqa: E402

from warpsmith.bench import BenchSettings, BenchStore, Options, bench  # noqa: E402
from warpsmith.executors.local import LocalExecutor  # noqa: E402
from warpsmith.tasks.suite import suite_root, task_files  # noqa: E402


def main() -> None:
    args = parse_args()
    work = Path(tempfile.mkdtemp(prefix="warpsmith-scale-"))
    suite = limited_suite(args.suite, args.tasks, work / "suite")
    runs = [run(name, make, suite, args, work) for name, make in executors(args)]
    result = summary(args, suite, runs)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(table(result))
    shutil.rmtree(work, ignore_errors=True)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="the JSON file to write")
    p.add_argument("--suite", default="builtin/level1")
    p.add_argument("--generator", default="library",
                   help="library (the offline kernel library) or dir:PATH")
    p.add_argument("--tasks", type=int, default=None, help="only the first N tasks of the suite")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--profile", default="quick")
    p.add_argument("--ray", action="store_true", help="also a local Ray instance, every GPU")
    p.add_argument("--depth", type=int, default=0,
                   help="library: knob-tuner rounds (0: the library's first rendering only)")
    p.add_argument("--tune", action="store_true",
                   help="run the generic tuner on each best kernel (off: one verification a task,"
                        " so the runs compare executors, not search depth)")
    return p.parse_args()


def limited_suite(spec: str, count: int | None, into: Path) -> Path:
    """The first `count` task files of the suite, copied with their level folders so their
    names stay (level1/relu)."""
    root = suite_root(spec)
    files = task_files(root)[:count] if count else task_files(root)
    level = root.name if root.name.startswith("level") else ""  # builtin/level1 → level1/
    for _name, _level, path in files:
        target = into / level / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return into


def executors(args) -> list[tuple[str, object]]:
    """(name, a function making the executor): one device, then all of them."""
    if args.device == "cpu":
        every = min(2, os.cpu_count() or 1)
        made = [("local, 1 CPU worker", lambda: LocalExecutor(gpus=[], workers=1)),
                (f"local, {every} CPU workers", lambda: LocalExecutor(gpus=[], workers=every))]
    else:
        count = torch.cuda.device_count()
        if count == 0:
            sys.exit("--device cuda, but no GPU is here (use --device cpu to try the script)")
        made = [("local, 1 GPU", lambda: LocalExecutor(gpus=[0])),
                (f"local, {count} GPUs", lambda: LocalExecutor())]
    if args.ray:
        made.append(("ray, every GPU" if args.device == "cuda" else "ray, CPU actors",
                     ray_executor))
    return made


def ray_executor():
    from warpsmith.executors.ray import RayExecutor

    return RayExecutor("local")


def run(name: str, make, suite: Path, args, work: Path) -> dict:
    """One bench, cold: its own store, home and compiler caches (set before the executor
    starts its workers, which inherit them)."""
    folder = work / f"run{len(list(work.glob('run*')))}"
    for var, sub in (("WARPSMITH_HOME", "home"), ("TRITON_CACHE_DIR", "triton"),
                     ("TORCHINDUCTOR_CACHE_DIR", "inductor")):
        os.environ[var] = str(folder / sub)
    executor = make()
    try:
        start = time.perf_counter()
        result = bench(suite, args.generator, BenchSettings(device=args.device,
                                                            profile=args.profile),
                       Options(depth=args.depth, tune=args.tune), db=folder / "store.sqlite",
                       executor=executor, on_progress=lambda p: progress(name, p))
        wall = time.perf_counter() - start
    finally:
        executor.close()
    store = BenchStore(folder / "store.sqlite")
    items = store.items(result.bench_id)
    store.close()
    print(f"{name}: {len(items)} items in {wall:.1f} s ({result.status})", file=sys.stderr)
    return {"executor": name, "slots": executor.slots, "status": result.status,
            "wall_s": round(wall, 2), "items": len(items),
            "items_per_min": round(60 * len(items) / wall, 2) if wall else None,
            "verdicts": {i.task: i.status for i in items},
            "speedups": {i.task: i.verdict.speedup_vs_eager for i in items
                         if i.verdict is not None and i.passed}}


def progress(name: str, p) -> None:
    if p.last is not None:
        print(f"  {name}: {p.done}/{p.total} {p.last.task} {p.last.status} "
              f"({p.elapsed_s:.0f} s)", file=sys.stderr, flush=True)


def summary(args, suite: Path, runs: list[dict]) -> dict:
    first = runs[0]["verdicts"]
    disagree = sorted({task for r in runs[1:] for task in set(first) | set(r["verdicts"])
                       if r["verdicts"].get(task) != first.get(task)})
    for r in runs:
        r["speedup_vs_first"] = round(runs[0]["wall_s"] / r["wall_s"], 2) if r["wall_s"] \
            else None
    return {"device": args.device, "gpus": torch.cuda.device_count(),
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
            "host": platform.node(), "torch": torch.__version__, "suite": args.suite,
            "tasks": len(task_files(suite)), "generator": args.generator,
            "profile": args.profile, "depth": args.depth, "tune": args.tune, "runs": runs,
            "statuses_agree": not disagree,
            "disagreements": {t: [r["verdicts"].get(t) for r in runs] for t in disagree}}


def table(result: dict) -> str:
    lines = [f"{result['tasks']} tasks of {result['suite']}, generator {result['generator']}, "
             f"device {result['device']} ({result['gpu'] or 'no GPU'}); verdict statuses "
             f"{'agree' if result['statuses_agree'] else 'DISAGREE'} between runs", "",
             "| executor | slots | wall s | items/min | vs first |", "|---|---|---|---|---|"]
    for r in result["runs"]:
        lines.append(f"| {r['executor']} | {r['slots']} | {r['wall_s']} | {r['items_per_min']}"
                     f" | {r['speedup_vs_first']}x |")
    for task, statuses in result["disagreements"].items():
        lines.append(f"\n{task}: {' / '.join(str(s) for s in statuses)}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
