"""Generic tuner benchmark on a GPU: configs/s of the ranking, and what tuning buys.

For each starting candidate (honest files from tests/kernels/good and library renderings), in
a fresh run: the start is fully verified (its speedup vs eager), K variants are ranked by the
tuner's worker (configs/s = variants / ranking wall time, process start included; compile and
timing phases apart), and the fastest ranked variants go through the full verifier until one
passes. Prints one table and writes every number as JSON to --out (rewritten after each task,
so a killed run keeps what it measured). Helion reports about 2.6 configs/s for its autotuner.

    PYTHONPATH=src python benchmarks/tuner_gpu.py --out /tmp/tuner.json [--variants 24]
    # the compile helpers against the thread pool alone, on a GEMM:
    PYTHONPATH=src python benchmarks/tuner_gpu.py --out /tmp/t1.json --tasks matmul_fp16 \
        --variants 48 --processes 1
    PYTHONPATH=src python benchmarks/tuner_gpu.py --out /tmp/t8.json --tasks matmul_fp16 \
        --variants 48 --processes 8
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
# The verify and ranking workers run in an empty cwd: a relative PYTHONPATH=src misses there.
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"),
                                                        os.environ.get("PYTHONPATH")) if p)

from warpsmith.library import generate  # noqa: E402
from warpsmith.search.budget import Budget  # noqa: E402
from warpsmith.search.context import RunContext, Settings  # noqa: E402
from warpsmith.search.tuner import TUNE_CHAIN, RankSettings, tune  # noqa: E402
from warpsmith.store.runs import RunStore  # noqa: E402
from warpsmith.tasks.suite import resolve_task  # noqa: E402
from warpsmith.verify.pipeline import verify  # noqa: E402

GOOD = ROOT / "tests" / "kernels" / "good"
HELION_CONFIGS_PER_S = 2.6
# (task, where the start comes from): a good file, or "library" for the library's rendering.
# About 45-60 s each at 24 configs on an H200 (relu measured: 46 s), so about 4 minutes in all.
CASES = [("level1/relu", "relu_triton.py"), ("level1/linear_fp16", "linear_fp16_two_kernels.py"),
         ("level1/softmax_bf16", "softmax_bf16_triton.py"), ("level1/matmul_fp16", "library")]


def start_source(task: str, origin: str) -> str:
    return generate(task).source if origin == "library" else (GOOD / origin).read_text()


def context(task: str, workdir: Path) -> RunContext:
    store = RunStore(workdir / "runs.sqlite")
    run_id = store.new_run(task, "library", "tune", {})

    def verify_fn(t, path):
        return verify(t, path, device="cuda", profile="quick")

    return RunContext(run_id, resolve_task(task), None, store, verify_fn, Budget(),
                      Settings(device="cuda"), workdir)


def run_case(task: str, origin: str, variants: int, settings: RankSettings) -> dict:
    clock = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        # A cold Triton cache for each case, so no run compiles less because another ran first.
        os.environ["TRITON_CACHE_DIR"] = str(Path(tmp) / "triton-cache")
        ctx = context(task, Path(tmp))
        start = ctx.attempt_source(start_source(task, origin), note="start", chain=TUNE_CHAIN)
        row = {"task": task, "start": origin, "start_status": start.status,
               "start_speedup": start.verdict.speedup_vs_eager}
        if not start.passed:
            return row | {"note": "; ".join(start.verdict.reasons)}
        result = tune(ctx, start, settings, limit=variants)
        ranking = result.ranking
        attempts = ctx.store.attempts(ctx.run_id)[1:]
    row |= {"knobs": result.knobs, "variants": result.variants + 1, "note": result.note,
            "verified": [(a.depth, a.status, a.verdict.speedup_vs_eager) for a in attempts],
            "kept_speedup": result.kept.verdict.speedup_vs_eager if result.kept else None,
            "total_s": time.perf_counter() - clock}
    if ranking is not None:
        top = ranking.faster(0.0)[:1]
        row |= {"ranking_s": ranking.wall_s, "configs_per_s": ranking.configs_per_s,
                "phases": ranking.phases, "ranked_ok": sum(e.ok for e in ranking.entries),
                "predicted_top": ranking.predicted(top[0]) if top else None,
                "ranking_error": ranking.error,
                # each variant's first call in the worker (compile, or a load from the cache
                # when the helpers compiled it): says whether and where compiling took the time
                "first_call_s": [round(e.compile_s, 3) for e in ranking.entries],
                "errors": sorted({e.error.split(":")[0] + ": " + e.error.split(":")[1][:60]
                                  for e in ranking.entries if e.error and ":" in e.error})}
    return row


def table(rows: list[dict]) -> str:
    lines = ["| task | start | knobs | configs | ranking s | configs/s | compile s | time s | "
             "ok | predicted | start × eager | tuned × eager | gain |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        phases = r.get("phases", {})
        gain = r["kept_speedup"] / r["start_speedup"] if r.get("kept_speedup") and \
            r.get("start_speedup") else None
        lines.append(
            f"| {r['task']} | {r['start']} | {r.get('knobs', '-')} | {r.get('variants', '-')} "
            f"| {_f(r.get('ranking_s'), '.1f')} | {_f(r.get('configs_per_s'))} | "
            f"{_f(phases.get('compile_s'), '.1f')} | {_f(phases.get('time_s'), '.1f')} | "
            f"{r.get('ranked_ok', '-')} | {_f(r.get('predicted_top'))} | "
            f"{_f(r.get('start_speedup'))} | {_f(r.get('kept_speedup'))} | {_f(gain, '.3f')} |")
    rates = [r["configs_per_s"] for r in rows if r.get("configs_per_s")]
    if rates:
        mean = sum(rates) / len(rates)
        lines += ["", f"mean {mean:.2f} configs/s = {mean / HELION_CONFIGS_PER_S:.1f}x Helion's "
                      f"reported {HELION_CONFIGS_PER_S} configs/s"]
    return "\n".join(lines)


def _f(x, spec=".2f") -> str:
    return format(x, spec) if x else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="a JSON file")
    parser.add_argument("--variants", type=int, default=24, help="configs per task, the "
                        "start included")
    parser.add_argument("--tasks", default="", help="comma-separated task names (default all)")
    parser.add_argument("--processes", type=int, default=None, help="compile helper processes "
                        "(1: the worker's thread pool alone; default: RankSettings')")
    args = parser.parse_args()
    settings = RankSettings() if args.processes is None else RankSettings(
        processes=args.processes)
    wanted = {t for t in args.tasks.split(",") if t}
    rows: list[dict] = []
    meta = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
            "processes": settings.processes,
            "cpus": os.cpu_count()}
    for task, origin in CASES:
        if wanted and task not in wanted and task.split("/")[-1] not in wanted:
            continue
        rows.append(run_case(task, origin, args.variants, settings))
        print(json.dumps(rows[-1], default=str), flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1, default=str))
    print(meta)
    print(table(rows))


if __name__ == "__main__":
    main()
