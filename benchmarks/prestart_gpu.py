"""Spare candidate processes (verify/isolation/prestart.py) on a GPU: what they save, and whether a
spare starting beside a timed measurement moves the measurement.

For each policy (off, after, ahead) a fresh process verifies honest candidates back to back,
R times each task in turn (no verdict cache), with --gap seconds between verifications (0: a
bench or RL service; a search has an LLM call there). Per policy it reports the median wall
time of a verification and of the candidate process (first round left out: it pays the cold
start whatever the policy), and per task the spread (max/min) of the measured speedup vs eager.

    PYTHONPATH=src python benchmarks/prestart_gpu.py --out prestart.json --rounds 4
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOOD = ROOT / "tests" / "kernels" / "good"
TASKS = {"level1/relu": "relu_triton.py", "level1/sum_last_dim": "sum_last_dim_triton.py",
         "level1/layer_norm": "layer_norm_triton.py"}
POLICIES = ("off", "after", "ahead")


def child(args) -> None:
    """One policy, in this process: the spare pool is this process's."""
    sys.path.insert(0, str(ROOT / "src"))
    from warpsmith.verify.pipeline import verify

    rows = []
    for r in range(args.rounds):
        for task, good in TASKS.items():
            start = time.perf_counter()
            v = verify(task, GOOD / good, device=args.device)
            rows.append({"round": r, "task": task, "status": v.status,
                         "wall_s": time.perf_counter() - start,
                         "candidate_s": v.stage_seconds.get("candidate_process"),
                         "speedup": v.speedup_vs_eager})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            time.sleep(args.gap)
    print(json.dumps(rows))


def summarise(policy: str, rows: list[dict]) -> dict:
    warm = [r for r in rows if r["round"] > 0]
    spread = {}
    for task in TASKS:
        s = [r["speedup"] for r in rows if r["task"] == task and r["speedup"]]
        spread[task] = round(max(s) / min(s), 4) if s else None
    return {"policy": policy, "verifications": len(rows),
            "statuses": sorted({r["status"] for r in rows}),
            "median_wall_s": round(statistics.median(r["wall_s"] for r in warm), 2),
            "median_candidate_s": round(statistics.median(r["candidate_s"] for r in warm), 2),
            "speedup_spread": spread, "rows": rows}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--gap", type=float, default=0.0, help="seconds between verifications")
    p.add_argument("--device", default="cuda")
    p.add_argument("--policies", default=",".join(POLICIES))
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args)
    results = []
    for policy in args.policies.split(","):
        env = os.environ | {"WARPSMITH_PRESTART": policy}
        cmd = [sys.executable, __file__, "--child", "--out", str(args.out), "--rounds",
               str(args.rounds), "--gap", str(args.gap), "--device", args.device]
        done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
        results.append(summarise(policy, json.loads(done.stdout.strip().splitlines()[-1])))
        args.out.write_text(json.dumps({"gap_s": args.gap, "rounds": args.rounds,
                                        "policies": results}, indent=1))
    print("| policy | verifications | statuses | median wall s | median candidate s | "
          "speedup spread (max/min) |\n|---|---|---|---|---|---|")
    for r in results:
        spread = ", ".join(f"{t.split('/')[1]} {s}" for t, s in r["speedup_spread"].items())
        print(f"| {r['policy']} | {r['verifications']} | {' '.join(r['statuses'])} | "
              f"{r['median_wall_s']} | {r['median_candidate_s']} | {spread} |")


if __name__ == "__main__":
    main()
