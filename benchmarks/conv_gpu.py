"""Verify and time the library's convolution candidates (the conv family, issue 19 item 2) on
KernelBench level 1 and 2 at the official sizes, against eager PyTorch and torch.compile.

For each task the offline library covers with the conv family (a family label starting with
"conv": the convolution and whatever kernels follow it), the candidate is rendered with the
default knobs (or --tune's), written to DIR, and verified by warpsmith's own pipeline
(correctness over its seeds and input distributions, then interleaved timing of the kernel,
eager and torch.compile in one process). One JSON row per task goes to DIR/conv-gpu.json,
rewritten after each task; a rerun skips tasks already there (delete the file to redo).

On the H200 (`. benchmarks/gpu_env.sh` first):

    PYTHONPATH=src python benchmarks/conv_gpu.py --dir /tmp/conv --device cuda
    PYTHONPATH=src python benchmarks/conv_gpu.py --dir /tmp/conv --levels 2 \\
        --tasks 1_Conv2D_ReLU_BiasAdd,24_Conv3d_Min_Softmax --tune CONV_BLOCK_N=128

A dry run on the CPU (Triton's interpreter: no timing, sizes halved to the smallest the
task allows, minutes per task, so name a few):

    TRITON_INTERPRET=1 PYTHONPATH=src python benchmarks/conv_gpu.py --dir /tmp/conv-cpu \\
        --device cpu --levels 1 --tasks 87_conv_pointwise_2D
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"),
                                                        os.environ.get("PYTHONPATH")) if p)

from warpsmith.library import Generated, coverage, generate  # noqa: E402
from warpsmith.tasks.admission import TooLarge, cpu_sized  # noqa: E402
from warpsmith.tasks.suite import load_suite  # noqa: E402

# the CPU dry run: shrink until a call is tiny (the interpreter runs ~1 ms per program)
CPU_BYTES, CPU_FLOPS = 1 << 20, 2e8


def main() -> None:
    args = parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    out = args.dir / "conv-gpu.json"
    rows = json.loads(out.read_text()) if out.exists() else []
    done = {r["task"] for r in rows}
    tune = dict(_knob(k) for k in args.tune)
    for level, task in covered(args):
        if task.title in done:
            continue
        rows.append(run_one(args, level, task, tune))
        out.write_text(json.dumps(rows, indent=1))
        print(_line(rows[-1]), flush=True)
    print(table(rows))


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", type=Path, required=True, help="candidates and conv-gpu.json")
    p.add_argument("--kernelbench", type=Path, default=ROOT / "KernelBench",
                   help="the folder holding level1/ and level2/")
    p.add_argument("--levels", default="1,2")
    p.add_argument("--tasks", default=None, help="only these task titles, comma-separated")
    p.add_argument("--device", default="cuda")
    p.add_argument("--profile", default="thorough", help="the verifier's profile")
    p.add_argument("--tune", action="append", default=[], metavar="KNOB=VALUE",
                   help="a knob for every candidate (CONV_BLOCK_M=64), repeatable")
    return p.parse_args()


def _knob(text: str) -> tuple[str, int]:
    name, _, value = text.partition("=")
    return name, int(value)


def covered(args):
    """(level, task) for each task the conv family covers, in suite order."""
    wanted = set(args.tasks.split(",")) if args.tasks else None
    for level in args.levels.split(","):
        tasks, _ = load_suite(str(args.kernelbench / f"level{level}"))
        for task, row in zip(tasks, coverage(tasks), strict=True):
            if row.family and row.family.startswith("conv") and \
                    (wanted is None or task.title in wanted):
                yield level, task


def run_one(args, level: str, task, tune: dict) -> dict:
    from warpsmith.verify.pipeline import verify

    row = {"task": task.title, "level": level}
    if args.device == "cpu":
        try:
            task, row["shape"] = cpu_sized(task, CPU_BYTES, CPU_FLOPS)
        except TooLarge as e:
            return row | {"status": "too_large", "why": str(e)}
    made = generate(task, tune=tune or None)
    if not isinstance(made, Generated):
        return row | {"status": "not_covered", "why": made.reason}
    path = args.dir / f"{task.title}.py"
    path.write_text(made.source)
    row |= {"family": made.family, "kernels": made.kernels}
    verdict = verify(task, path, device=args.device, profile=args.profile)
    times = {t.name: t.median_us for t in verdict.timings}
    return row | {"status": verdict.status, "kernel_us": times.get("candidate"),
                  "eager_us": times.get("eager"), "compile_us": times.get("compile"),
                  "x_eager": verdict.speedup_vs_eager, "x_compile": verdict.speedup_vs_compile,
                  "floor_us": verdict.floor_us,
                  "why": "" if verdict.passed else verdict.feedback[:400]}


def _line(r: dict) -> str:
    return (f"{r['task']}: {r['status']} {r.get('family', '')} "
            f"×eager {_f(r.get('x_eager'))} ×compile {_f(r.get('x_compile'))}")


def table(rows: list[dict]) -> str:
    lines = ["| level | task | kernels | eager µs | compile µs | conv µs | ×eager | ×compile |",
             "|---|---|---|---|---|---|---|---|"]
    timed = [r for r in rows if r["status"] == "passed" and r.get("kernel_us")]
    for r in timed:
        lines.append(f"| {r['level']} | {r['task']} | {r['kernels']} | {r['eager_us']:.1f} | "
                     f"{_f(r['compile_us'], '.1f')} | {r['kernel_us']:.1f} | "
                     f"{_f(r['x_eager'])} | {_f(r['x_compile'])} |")
    for key in ("x_eager", "x_compile"):
        values = [r[key] for r in timed if r.get(key)]
        if values:
            geo = math.exp(statistics.fmean(math.log(v) for v in values))
            lines.append(f"\nGeometric mean {key}: {geo:.2f} over {len(values)} tasks")
    rest = [f"{r['task']} ({r['status']})" for r in rows if r not in timed]
    if rest:
        lines.append("\nNot timed: " + ", ".join(rest))
    return "\n".join(lines)


def _f(value, spec: str = ".2f") -> str:
    return "-" if value is None else format(value, spec)


if __name__ == "__main__":
    main()
