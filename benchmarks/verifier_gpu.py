"""Verifier benchmark on a GPU: wall time per candidate by stage, and speedup noise.

For each honest Triton candidate in tests/kernels/good whose task is in --tasks, verify it
--repeats times at the task's GPU shape and record status, stage times and speedup_vs_eager;
beside it, in the same run, a KernelBench-style measurement of the same pair (mean of CUDA
event times on the current stream, no device-wide sync, no L2 flush, same inputs every call,
candidate and baseline timed separately). Writes results.json and results.md to --out.
`--baselines process,here` verifies each candidate once per way of timing the baselines in
every repeat (the profile's `baselines` field), alternating, so drift falls on both alike.

    PYTHONPATH=src python benchmarks/verifier_gpu.py --out /tmp/bench --repeats 5
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from warpsmith.config import profile as get_profile  # noqa: E402
from warpsmith.tasks import build, resolve_task  # noqa: E402
from warpsmith.verify.pipeline import verify  # noqa: E402

GOOD = ROOT / "tests" / "kernels" / "good"
GPU_ONLY = ROOT / "tests" / "kernels" / "gpu"


def candidates(tasks: list[str], cuda: bool) -> list[tuple[str, Path]]:
    """Honest Triton candidates for the tasks; with cuda, the honest CUDA C++ ones instead."""
    found = []
    paths = sorted(GPU_ONLY.glob("*_cuda_*.py")) if cuda else sorted(GOOD.glob("*.py"))
    for path in paths:
        task = re.search(r"^# task: (\S+)", path.read_text(), re.MULTILINE).group(1)
        if not tasks or task.split("/")[-1] in tasks:
            found.append((task, path))
    return found


def kernelbench_style(task_name: str, path: Path, trials: int = 100) -> float:
    """Speedup as KernelBench's evaluator measures it (see the module docstring)."""
    task = resolve_task(task_name)
    inst = build(task, "gpu", device="cuda", seed=0)
    spec = importlib.util.spec_from_file_location(f"cand_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with torch.device("cuda"):
        new = module.ModelNew(*inst.init_inputs).cuda().eval()
    new.load_state_dict(inst.model.state_dict(), strict=False)
    with torch.no_grad():
        ref_ms = _mean_event_ms(inst.model, inst.inputs, trials)
        new_ms = _mean_event_ms(new, inst.inputs, trials)
    return ref_ms / new_ms


def _mean_event_ms(fn, inputs, trials: int) -> float:
    for _ in range(3):
        fn(*inputs)
    torch.cuda.synchronize()
    times = []
    for _ in range(trials):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*inputs)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.mean(times)


def run_one(task: str, path: Path, repeats: int, save, kb_style: bool = True,
            ways: tuple[str, ...] = ("process",)) -> dict:
    kb = [kernelbench_style(task, path) for _ in range(repeats)] if kb_style else []
    result = {"task": task, "candidate": path.name, "runs": [], "kernelbench_speedups": kb}
    rows = result["runs"]
    for _ in range(repeats):
        for way in ways:
            rows.append(_verify_once(task, path, way))
            save(result)
    return result


def _verify_once(task: str, path: Path, way: str) -> dict:
    start = time.perf_counter()
    prof = replace(get_profile("quick"), baselines=way)
    v = verify(task, path, device="cuda", profile=prof, store=None)
    row = {"baselines": way, "status": v.status, "wall_s": time.perf_counter() - start,
                     "speedup_vs_eager": v.speedup_vs_eager,
                     "speedup_vs_compile": v.speedup_vs_compile,
                     "roofline_fraction": v.roofline_fraction, "stages": v.stage_seconds,
                     "timings": [t.__dict__ for t in v.timings], "reasons": list(v.reasons),
                     "clocks": v.environment.get("clocks"),
                     "clock": v.environment.get("clock"), "warnings": list(v.warnings)}
    print(task, way, v.status, f"{row['wall_s']:.1f}s", f"eager×{v.speedup_vs_eager}",
          {k: round(x, 2) for k, x in v.stage_seconds.items()}, v.reasons[:1],
          list(v.warnings)[:2], flush=True)
    return row


def spread(values) -> float | None:
    values = [v for v in values if v]
    return max(values) / min(values) if values else None


STAGES = ("reference", "candidate_process", "inputs", "import", "correctness", "timing",
          "collect", "compare")


def markdown(results: list[dict], gpu: str) -> str:
    lines = [f"GPU: {gpu}; torch {torch.__version__}", "",
             "| task | status | speedup vs eager (median) | vs compile | roofline | "
             "spread, ours | spread, KernelBench-style |",
             "|---|---|---|---|---|---|---|"]
    for r in _by_way(results):
        runs = r["runs"]
        sp = [x["speedup_vs_eager"] for x in runs if x["speedup_vs_eager"]]
        sc = [x["speedup_vs_compile"] for x in runs if x["speedup_vs_compile"]]
        rf = [x["roofline_fraction"] for x in runs if x["roofline_fraction"]]
        lines.append(
            f"| {r['task']} | {','.join(sorted({x['status'] for x in runs}))} | "
            f"{_f(sp and statistics.median(sp))} | {_f(sc and statistics.median(sc))} | "
            f"{_f(rf and statistics.median(rf), '.0%')} | {_f(spread(sp), '.3f')} | "
            f"{_f(spread(r['kernelbench_speedups']), '.3f')} |")
    lines += ["", "Wall time per candidate, medians in seconds (candidate_process contains "
              "inputs … collect; the rest of it is Python, torch and CUDA start-up):", "",
              "| task | wall | " + " | ".join(STAGES) + " |",
              "|---|---|" + "---|" * len(STAGES)]
    for r in _by_way(results):
        runs = r["runs"]
        med = [statistics.median(x["stages"].get(k, 0) for x in runs) for k in STAGES]
        lines.append(f"| {r['task']} | {statistics.median(x['wall_s'] for x in runs):.1f} | "
                     + " | ".join(f"{m:.2f}" for m in med) + " |")
    return "\n".join(lines) + "\n"


def _by_way(results: list[dict]) -> list[dict]:
    """One row per task and way of timing the baselines (`task (way)`)."""
    rows = []
    for r in results:
        ways = sorted({x.get("baselines", "here") for x in r["runs"]})
        rows += [r | {"task": f"{r['task']} ({way})",
                      "runs": [x for x in r["runs"] if x.get("baselines", "here") == way]}
                 for way in ways]
    return rows


def _f(x, spec=".2f") -> str:
    return format(x, spec) if x else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tasks", default="", help="comma-separated level-1 task names")
    parser.add_argument("--cuda", action="store_true",
                        help="the honest CUDA C++ candidates (load_inline, NVRTC) instead; "
                             "no KernelBench-style column")
    parser.add_argument("--baselines", default="process",
                        help="where eager and torch.compile are timed, comma-separated to "
                             "alternate: process (their own, the default), here")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = []

    def save(current: dict) -> None:  # after every verify, so a killed run keeps its data
        done = results + [current]
        (args.out / "results.json").write_text(json.dumps(done, indent=1))
        (args.out / "results.md").write_text(markdown(done, torch.cuda.get_device_name()))

    for task, path in candidates([t for t in args.tasks.split(",") if t], args.cuda):
        results.append(run_one(task, path, args.repeats, save, kb_style=not args.cuda,
                               ways=tuple(args.baselines.split(","))))
    print(markdown(results, torch.cuda.get_device_name()))


if __name__ == "__main__":
    main()
