"""Host cost of a CUDA launch and an event record, before and after one torch.profiler
session, in a plain process (no verifier): does CUPTI, once a profiler session has run,
slow every later CUDA call, and does kineto's TEARDOWN_CUPTI change that?

    for t in unset 0 1; do python3 benchmarks/cupti_launch.py --teardown $t; done

One JSON line per run: microseconds per call (median of 7 rounds of 200 calls) for a
one-element add_, an event record and a small Triton kernel, before and after the session."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def _per_call_us(fn, calls: int = 200, rounds: int = 7) -> float:
    import torch

    samples = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return round(statistics.median(samples), 2)


def _probes():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def bump(x_ptr):
        tl.store(x_ptr, tl.load(x_ptr) + 1)

    x = torch.zeros(1, device="cuda")
    event = torch.cuda.Event(enable_timing=True)
    bump[(1,)](x)
    return {"add_": lambda: x.add_(1), "event_record": event.record,
            "triton": lambda: bump[(1,)](x)}


def measure() -> dict:
    import torch
    from torch.profiler import ProfilerActivity, profile

    probes = _probes()
    row = {name: {"before": _per_call_us(fn)} for name, fn in probes.items()}
    with profile(activities=[ProfilerActivity.CUDA]):
        probes["add_"]()
        torch.cuda.synchronize()
    for _ in range(3):  # teardown is lazy: it happens at a later CUDA call
        probes["add_"]()
    torch.cuda.synchronize()
    for name, fn in probes.items():
        row[name]["after"] = _per_call_us(fn)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teardown", choices=["unset", "0", "1"], default="unset",
                        help="TEARDOWN_CUPTI for the measuring process")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure()))
        return
    env = dict(os.environ)
    env.pop("TEARDOWN_CUPTI", None)
    if args.teardown != "unset":
        env["TEARDOWN_CUPTI"] = args.teardown
    done = subprocess.run([sys.executable, __file__, "--child"], env=env, text=True,
                          capture_output=True, timeout=120)
    line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "null"
    print(json.dumps({"teardown": args.teardown, "rc": done.returncode,
                      "us_per_call": json.loads(line), "stderr": done.stderr[-400:]}))


if __name__ == "__main__":
    main()
