"""Where does run-to-run noise in a GPU speedup come from? A diagnostic, not a verdict.

For each task, P fresh processes each time the honest Triton candidate and eager PyTorch at
the task's GPU shape under several timing variants, interleaved in blocks:

    old         verifier 2's call: L2 flush, persisting-L2 limit set to 0 and lines reset
                (two driver calls) before every call, events around the call, device-wide
                synchronize before the end event
    new         the current verify/child/timing.py: limit and lines reset once per block, the limit
                only read (cuCtxGetLimit) before every call
    reset_only  cuCtxResetPersistingL2Cache alone before every call
    limit_only  cuCtxSetLimit(persisting L2 = 0) alone before every call
    no_reset    no persisting-L2 call at all
    lead        old, plus ~1 ms of GPU sleep queued before the start event, so host-side
                launch overhead can never leave the GPU idle inside the timed window

Each process prints the median per (variant, impl); the parent reports, per variant, the
spread (max/min over processes) of eager/candidate.

    PYTHONPATH=src python benchmarks/noise_probe.py --out noise.json --procs 5
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASKS = {"level1/gelu_tanh_fp16": "gelu_tanh_fp16_triton.py", "level1/relu": "relu_triton.py",
         "level1/sigmoid": "sigmoid_triton.py", "level1/softmax": "softmax_rows.py"}
VARIANTS = ("old", "new", "reset_only", "limit_only", "no_reset", "lead")


def child(task_name: str, candidate: str, blocks: int, calls: int) -> dict:
    import random

    import torch

    sys.path.insert(0, str(ROOT / "src"))
    from warpsmith.tasks import build, resolve_task
    from warpsmith.tasks.loader import make_inputs
    from warpsmith.verify import cudadriver
    from warpsmith.verify.child.timing import L2_FLUSH_BYTES, _Slots

    task = resolve_task(task_name)
    inst = build(task, "gpu", device="cuda", seed=0)
    spec = importlib.util.spec_from_file_location("cand", ROOT / "tests/kernels/good" / candidate)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with torch.device("cuda"):
        new = module.ModelNew(*inst.init_inputs).cuda().eval()
    new.load_state_dict(inst.model.state_dict(), strict=False)
    impls = {"candidate": new, "eager": inst.model}
    pool = [(i, make_inputs(task, "gpu", device="cuda", seed=10 + i)) for i in range(3)]
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device="cuda")

    drv = cudadriver.driver()

    def persisting(variant):
        if variant in ("old", "lead"):
            cudadriver.reset_persisting_l2()
        elif variant == "new":
            assert cudadriver.persisting_l2_limit() == 0
        elif variant == "reset_only":
            cudadriver.check(drv.cuCtxResetPersistingL2Cache(), "reset")
        elif variant == "limit_only":
            cudadriver.check(drv.cuCtxSetLimit(cudadriver.CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
                                               ctypes.c_size_t(0)), "limit")

    def call(variant, fn, inputs):
        persisting(variant)
        flush.zero_()
        if variant == "lead":
            torch.cuda._sleep(2_000_000)  # ~1 ms at ~2 GHz
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*inputs)
        torch.cuda.synchronize()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1000.0

    times = {(v, n): [] for v in VARIANTS for n in impls}
    with torch.no_grad():
        for fn in impls.values():
            for _ in range(5):
                fn(*pool[0][1])
        torch.cuda.synchronize()
        slots = {v: _Slots(pool) for v in VARIANTS}
        for block in range(blocks):
            cudadriver.reset_persisting_l2()
            order = [(v, n) for v in VARIANTS for n in impls]
            random.Random(block).shuffle(order)
            for v, n in order:
                for _ in range(calls):
                    inputs = slots[v].next(n)[1]
                    times[(v, n)].append(call(v, impls[n], inputs))
    return {f"{v}/{n}": {"median_us": statistics.median(t), "min_us": min(t),
                         "iqr_us": _iqr(t)} for (v, n), t in times.items()}


def _iqr(values):
    q = statistics.quantiles(values, n=4)
    return q[2] - q[0]


def parent(args) -> None:
    results = {}
    for task, cand in TASKS.items():
        if args.tasks and task.split("/")[-1] not in args.tasks.split(","):
            continue
        runs = []
        for p in range(args.procs):
            start = time.perf_counter()
            done = subprocess.run([sys.executable, __file__, "--child", task, cand,
                                   str(args.blocks), str(args.calls)],
                                  capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                runs.append({"error": done.stderr[-2000:]})
                continue
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]) |
                        {"wall_s": time.perf_counter() - start})
            print(f"{task} process {p}: {time.perf_counter() - start:.1f} s", flush=True)
        results[task] = {"runs": runs, "spread": _spreads(runs)}
        args.out.write_text(json.dumps(results, indent=1))
        print(task, json.dumps(results[task]["spread"]), flush=True)


def _spreads(runs: list[dict]) -> dict:
    out = {}
    ok = [r for r in runs if "error" not in r]
    for v in VARIANTS:
        ratios = [r[f"{v}/eager"]["median_us"] / r[f"{v}/candidate"]["median_us"] for r in ok]
        cand = [r[f"{v}/candidate"]["median_us"] for r in ok]
        eager = [r[f"{v}/eager"]["median_us"] for r in ok]
        if ratios:
            out[v] = {"speedups": [round(x, 4) for x in ratios],
                      "spread": round(max(ratios) / min(ratios), 4),
                      "candidate_spread": round(max(cand) / min(cand), 4),
                      "eager_spread": round(max(eager) / min(eager), 4)}
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        task, cand, blocks, calls = sys.argv[2:6]
        print(json.dumps(child(task, cand, int(blocks), int(calls))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--procs", type=int, default=5)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--tasks", default="")
    parent(parser.parse_args())


if __name__ == "__main__":
    main()
