"""Where torch.compile's time goes in a fresh process (the baselines' process starts one per
verification): import torch, the model's build, and the compiled reference's first call, for
one built-in task at its GPU shape, printed as one JSON line. Run it twice or more with the
same caches to see the warm-cache cost; set TORCHINDUCTOR_COMPILE_THREADS=1 to see what
Inductor's worker pool costs.

    PYTHONPATH=src python3 benchmarks/compile_probe.py level1/layer_norm --device cuda
"""

from __future__ import annotations

import argparse
import json
import os
import time

began = time.perf_counter()
import torch  # noqa: E402

IMPORTED = time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--shape", default="", help="the task's shape (default: its last)")
    parser.add_argument("--warm-pool", action="store_true",
                        help="start Inductor's compile workers and wait for them first, as a "
                             "process started before its job could")
    args = parser.parse_args()
    from warpsmith.tasks import resolve_task
    from warpsmith.tasks.loader import build_model
    from warpsmith.verify.checks.inputs import case_inputs

    task = resolve_task(args.task)
    shape = args.shape or task.shapes[-1].name
    row = {"task": args.task, "import_torch_s": IMPORTED,
           "compile_threads": os.environ.get("TORCHINDUCTOR_COMPILE_THREADS", "default")}
    if args.warm_pool:
        from torch._inductor.async_compile import AsyncCompile, maybe_warm_pool

        t = time.perf_counter()
        maybe_warm_pool()
        AsyncCompile.wait_pool_ready()
        row["warm_pool_s"] = time.perf_counter() - t
    t = time.perf_counter()
    model = build_model(task, shape, args.device)
    inputs = case_inputs(task, shape, args.device, 1, "timing")
    row["build_s"] = time.perf_counter() - t
    with torch.no_grad():
        for name in ("first_call_s", "second_call_s"):
            t = time.perf_counter()
            if name == "first_call_s":
                fn = torch.compile(model)
            fn(*inputs)
            if args.device == "cuda":
                torch.cuda.synchronize()
            row[name] = time.perf_counter() - t
    from torch._dynamo.utils import counters

    row["cache"] = {f"{k}.{n}": c for k, v in counters.items() for n, c in v.items()
                    if "cache" in f"{k}.{n}".lower()}
    row["total_s"] = time.perf_counter() - began
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
