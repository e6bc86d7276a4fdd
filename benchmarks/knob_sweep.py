"""What the library's knobs are worth at a task's own size, outside the verifier: for each
named KernelBench task, the library's kernel rendered with each knob setting of a grid,
checked against eager on the same inputs, and timed beside eager and torch.compile (CUDA
events, the L2 flushed before every call, median of --calls). One JSON line per setting, so a
killed run keeps what it measured. A sweep to choose defaults from, not a verdict: the
verifier's figures come from `warpsmith bench`.

    PYTHONPATH=src python benchmarks/knob_sweep.py .kb/KernelBench/level1 51_ \\
        --grid '[{"BLOCK_R": 8, "BLOCK_I": 256}, {"BLOCK_R": 4, "BLOCK_I": 512}]'
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from warpsmith.library import Generated, generate  # noqa: E402
from warpsmith.tasks.loader import build, load_task  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", type=Path)
    p.add_argument("prefix", help="a task file name prefix, e.g. 51_")
    p.add_argument("--grid", required=True, help="a JSON list of knob settings")
    p.add_argument("--calls", type=int, default=15)
    p.add_argument("--budget-s", type=float, default=120.0, help="stop starting settings after")
    args = p.parse_args()
    path = next(args.folder.glob(f"{args.prefix}*.py"))
    task = load_task(path)
    inst = build(task, task.shapes[-1].name, device="cuda")
    model, inputs = inst.model, inst.inputs  # in the mode the task declares (build)
    end = time.perf_counter() + args.budget_s
    with torch.no_grad():
        expected = model(*inputs)
        row = {"task": path.stem, "eager_ms": _time(model, inputs, args.calls)}
        row["compile_ms"] = _time(torch.compile(model), inputs, args.calls)
        print(json.dumps(row), flush=True)
        for knobs in [{}] + json.loads(args.grid):
            if time.perf_counter() > end:
                break
            print(json.dumps({"task": path.stem, "knobs": knobs,
                              **_one(task, inst, knobs, expected, args.calls,
                                     row["eager_ms"])}), flush=True)


def _one(task, inst, knobs: dict, expected, calls: int, eager_ms: float) -> dict:
    try:
        gen = generate(task, tune=knobs)
        if not isinstance(gen, Generated):
            return {"error": f"not covered: {gen}"}
        new = _load(gen.source).ModelNew(*inst.init_inputs).cuda()
        new.load_state_dict(inst.model.state_dict(), strict=False)
        got = new(*inst.inputs)
        ok = torch.allclose(got.double(), expected.double(), rtol=1e-4, atol=1e-4) \
            if got.is_floating_point() else torch.equal(got, expected)
        ms = _time(new, inst.inputs, calls)
    except Exception as e:  # noqa: BLE001 - a sweep reports every failure and goes on
        return {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    return {"ok": bool(ok), "ms": ms, "vs_eager": round(eager_ms / ms, 3)}


def _time(fn, inputs, calls: int) -> float:
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for _ in range(3):
        fn(*inputs)
    times = []
    for _ in range(calls):
        flush.zero_()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*inputs)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return round(sorted(times)[len(times) // 2], 4)


def _load(source: str):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(Path(f.name).stem, f.name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()
