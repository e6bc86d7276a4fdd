"""Load test of the reward service on loopback: throughput and latency, cached and fresh.

Starts `warpsmith serve reward` as a subprocess on a free loopback port (its own process, so the
clients here do not share its interpreter lock), then fires at most --requests POST /v1/verify
requests from --clients concurrent clients, stopping new requests after --max-seconds. Two
workloads, reported apart because they differ by orders of magnitude:

    cached  the same candidate every time: after one warm-up request (not counted), the verdict
            store answers, so this measures the service itself (HTTP, queue, store)
    fresh   a distinct candidate source per item (a numbered comment), so the cache cannot
            answer and every item is a full verification
    mixed   what an RL batch looks like: --mixed-fresh new candidates and --mixed-stored repeats
            of --stored-distinct candidates verified beforehand (not counted), one item per
            request, all concurrent. The fresh requests go first; the stored ones are sent
            once /health shows a verification running, so they arrive behind fresh work.
            Latency is reported apart for the stored and the fresh requests.

Writes --out (JSON, every request's latency included) and prints a Markdown table.

    PYTHONPATH=src python benchmarks/reward_load.py --mode both --out /tmp/reward-load.json
    PYTHONPATH=src python benchmarks/reward_load.py --mode mixed --executor local \
        --mixed-fresh 4 --mixed-stored 46 --out /tmp/reward-mixed-50.json
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
CANDIDATE = (ROOT / "tests" / "kernels" / "good" / "relu_triton.py").read_text()
TOKEN = "load-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_service(port: int, executor: str, db: Path, log: Path,
                  src: Path = ROOT / "src") -> subprocess.Popen:
    env = os.environ | {"WARPSMITH_REWARD_TOKEN": TOKEN,
                        "PYTHONPATH": str(src) + os.pathsep
                        + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-m", "warpsmith.cli.main", "serve", "reward", "--port", str(port),
           "--executor", executor, "--db", str(db), "--max-queue", "100000",
           "--per-client", "64", "--max-items", "64"]
    return subprocess.Popen(cmd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def wait_healthy(url: str, proc: subprocess.Popen, timeout_s: float = 120) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited with {proc.returncode}")
        try:
            return httpx.get(f"{url}/health", timeout=2).json()
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError("the service did not become healthy")


def request_body(mode: str, n: int, items: int) -> dict:
    def source(k: int) -> str:
        return CANDIDATE if mode == "cached" else f"{CANDIDATE}\n# fresh variant {n}.{k}\n"

    return {"items": [{"task": "level1/relu", "candidate": source(k), "id": f"{n}.{k}"}
                      for k in range(items)]}


def run_clients(url: str, mode: str, requests: int, clients: int, items: int,
                max_seconds: float) -> dict:
    counter, lock = itertools.count(), threading.Lock()
    records: list[dict] = []
    start = time.monotonic()

    def client(cid: int) -> None:
        headers = {"Authorization": f"Bearer {TOKEN}", "X-Client-Id": f"client-{cid}"}
        with httpx.Client(base_url=url, headers=headers, timeout=900) as http:
            while time.monotonic() - start < max_seconds:
                with lock:
                    n = next(counter)
                if n >= requests:
                    return
                records.append(one_request(http, request_body(mode, n, items)))

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return summarise(mode, records, time.monotonic() - start, requests, clients, items,
                     max_seconds)


def one_request(http: httpx.Client, body: dict) -> dict:
    t0 = time.monotonic()
    try:
        r = http.post("/v1/verify", json=body)
        answered = r.json().get("items", []) if r.status_code == 200 else []
        code, handler = r.status_code, r.json().get("seconds") if r.status_code == 200 else None
    except httpx.HTTPError as e:
        answered, code, handler = [], f"{type(e).__name__}", None
    return {"seconds": time.monotonic() - t0, "code": code, "handler_s": handler,
            "statuses": [i["status"] for i in answered],
            "cached": sum(bool(i["verdict"] and i["verdict"]["cached"]) for i in answered)}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def summarise(mode, records, wall, requests, clients, items, max_seconds) -> dict:
    ok = [r for r in records if r["code"] == 200]
    latencies = [r["seconds"] for r in ok]
    verdicts = sum(len(r["statuses"]) for r in ok)
    statuses: dict[str, int] = {}
    for r in ok:
        for s in r["statuses"]:
            statuses[s] = statuses.get(s, 0) + 1
    return {
        "mode": mode, "requests_asked": requests, "requests_sent": len(records),
        "clients": clients, "items_per_request": items, "max_seconds": max_seconds,
        "stopped_by_time_cap": len(records) < requests, "wall_s": wall,
        "ok": len(ok), "failed": {str(r["code"]) for r in records if r["code"] != 200},
        "verdicts": verdicts, "cached_verdicts": sum(r["cached"] for r in ok),
        "verdicts_per_s": verdicts / wall if wall else 0.0, "statuses": statuses,
        "latency_s": {"p50": percentile(latencies, 50), "p90": percentile(latencies, 90),
                      "p99": percentile(latencies, 99), "mean": statistics.fmean(latencies),
                      "max": max(latencies)} if latencies else None,
        "request_seconds": latencies,
    }


def mixed_source(kind: str, k: int) -> str:
    return f"{CANDIDATE}\n# {kind} variant {k}\n"


def store_first(url: str, distinct: int) -> None:
    """The stored candidates, verified once before anything is counted."""
    headers = {"Authorization": f"Bearer {TOKEN}", "X-Client-Id": "warm-up"}
    items = [{"task": "level1/relu", "candidate": mixed_source("stored", k)}
             for k in range(distinct)]
    r = httpx.post(f"{url}/v1/verify", json={"items": items}, headers=headers, timeout=1800)
    r.raise_for_status()
    statuses = {i["status"] for i in r.json()["items"]}
    if statuses != {"passed"}:
        raise RuntimeError(f"warm-up verdicts: {statuses}")


def run_mixed(url: str, fresh: int, stored: int, distinct: int, tag: str) -> dict:
    """One concurrent burst: `fresh` new candidates first, then `stored` repeats. One asyncio
    client holds every request open at once (a thread per request would measure this
    process's interpreter lock as much as the service)."""
    bodies = ([("fresh", mixed_source(f"fresh {tag}", k)) for k in range(fresh)]
              + [("stored", mixed_source("stored", k % distinct)) for k in range(stored)])
    start = time.monotonic()
    records = asyncio.run(burst(url, bodies, fresh > 0))
    wall = time.monotonic() - start
    return {"mode": "mixed", "fresh": fresh, "stored": stored, "stored_distinct": distinct,
            "wall_s": wall, "failed": sorted({str(r["code"]) for r in records
                                              if r["code"] != 200}),
            "by_kind": {kind: kind_summary([r for r in records if r["kind"] == kind])
                        for kind in ("stored", "fresh")},
            "health_after": httpx.get(f"{url}/health", timeout=10).json()}


async def burst(url: str, bodies: list[tuple[str, str]], wait: bool) -> list[dict]:
    limits = httpx.Limits(max_connections=len(bodies), max_keepalive_connections=len(bodies))
    async with httpx.AsyncClient(base_url=url, timeout=1800, limits=limits) as http:
        async def one(n: int, kind: str, source: str) -> dict:
            headers = {"Authorization": f"Bearer {TOKEN}", "X-Client-Id": f"mixed-{n}"}
            body = {"items": [{"task": "level1/relu", "candidate": source, "id": str(n)}]}
            t0 = time.monotonic()
            r = await http.post("/v1/verify", json=body, headers=headers)
            seconds = time.monotonic() - t0
            answer = r.json() if r.status_code == 200 else {}
            items = answer.get("items", [])
            return {"kind": kind, "seconds": seconds, "code": r.status_code,
                    "handler_s": answer.get("seconds"), "statuses": [i["status"] for i in items],
                    "cached": sum(bool(i["verdict"] and i["verdict"]["cached"]) for i in items)}

        fresh = [asyncio.create_task(one(n, k, s)) for n, (k, s) in enumerate(bodies)
                 if k == "fresh"]
        if wait:  # until a fresh verification runs, so the stored requests arrive behind it
            deadline = time.monotonic() + 120
            while (await http.get("/health")).json()["in_flight"] == 0:
                if time.monotonic() > deadline:
                    raise RuntimeError("no verification started")
                await asyncio.sleep(0.05)
        stored = [asyncio.create_task(one(n, k, s)) for n, (k, s) in enumerate(bodies)
                  if k == "stored"]
        return list(await asyncio.gather(*fresh, *stored))


def kind_summary(records: list[dict]) -> dict:
    ok = [r for r in records if r["code"] == 200]
    latencies = [r["seconds"] for r in ok]
    statuses: dict[str, int] = {}
    for r in ok:
        for s in r["statuses"]:
            statuses[s] = statuses.get(s, 0) + 1
    return {"requests": len(records), "ok": len(ok), "statuses": statuses,
            "cached_verdicts": sum(r["cached"] for r in ok),
            "latency_s": {"p50": percentile(latencies, 50), "p99": percentile(latencies, 99),
                          "max": max(latencies), "min": min(latencies)} if latencies else None,
            # inside the service's handler: from the body parsed to the answer made
            "handler_s": {"p50": percentile(handler, 50), "p99": percentile(handler, 99)}
            if (handler := [r["handler_s"] for r in ok]) else None,
            "request_seconds": latencies}


def mixed_markdown(runs: list[dict], executor: str) -> str:
    lines = ["| burst (fresh + stored) | executor | stored p50 s | stored p99 s | stored max s "
             "| stored in handler p50 / p99 s | fresh p50 s | fresh max s | wall s "
             "| stored answered from store |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    nan = {"p50": float("nan"), "p99": float("nan"), "max": float("nan")}
    for r in runs:
        s, f = r["by_kind"]["stored"], r["by_kind"]["fresh"]
        ls, lf, hs = s["latency_s"] or nan, f["latency_s"] or nan, s["handler_s"] or nan
        lines.append(f"| {r['fresh']} + {r['stored']} | {executor} | {ls['p50']:.3f} | "
                     f"{ls['p99']:.3f} | {ls['max']:.3f} | {hs['p50']:.3f} / {hs['p99']:.3f} | "
                     f"{lf['p50']:.1f} | {lf['max']:.1f} | "
                     f"{r['wall_s']:.1f} | {s['cached_verdicts']} of {s['requests']} |")
    return "\n".join(lines)


def machine() -> dict:
    import torch
    import triton

    return {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "python": platform.python_version(), "torch": torch.__version__,
            "triton": triton.__version__, "gpu": torch.cuda.get_device_name()
            if torch.cuda.is_available() else None}


def markdown(runs: list[dict], executor: str) -> str:
    lines = ["| workload | executor | requests × items | clients | verdicts | wall s | "
             "verdicts/s | p50 s | p90 s | p99 s | statuses |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        lat = r["latency_s"] or {"p50": float("nan"), "p90": float("nan"), "p99": float("nan")}
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(r["statuses"].items()))
        lines.append(f"| {r['mode']} | {executor} | {r['ok']} × {r['items_per_request']} | "
                     f"{r['clients']} | {r['verdicts']} | {r['wall_s']:.1f} | "
                     f"{r['verdicts_per_s']:.2f} | {lat['p50']:.3f} | {lat['p90']:.3f} | "
                     f"{lat['p99']:.3f} | {statuses} |")
    return "\n".join(lines)


def measure(args, work: Path) -> tuple[dict, list[dict], str]:
    """The service on a fresh store in `work`; the workloads asked for, in order."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_service(port, args.executor, work / "verdicts.sqlite", work / "service.log",
                         args.src)
    runs = []
    try:
        health = wait_healthy(url, proc)
        if args.mode in ("cached", "both"):
            # one verification stores the verdict; every counted request is then a cache hit
            run_clients(url, "cached", 1, 1, 1, args.max_seconds)
            runs.append(run_clients(url, "cached", args.cached_requests, args.clients,
                                    args.items, args.max_seconds))
        if args.mode == "mixed":
            store_first(url, args.stored_distinct)
            for n, (fresh, stored) in enumerate(zip(args.mixed_fresh, args.mixed_stored,
                                                    strict=True)):
                runs.append(run_mixed(url, fresh, stored, args.stored_distinct, str(n)))
        if args.mode in ("fresh", "both"):
            runs.append(run_clients(url, "fresh", args.fresh_requests, args.fresh_clients,
                                    args.items, args.max_seconds))
    finally:
        proc.terminate()
        proc.wait(60)
    return health, runs, (work / "service.log").read_text()[-2000:]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mode", choices=["cached", "fresh", "both", "mixed"], default="both")
    p.add_argument("--executor", default="inline", help="inline, local, ray, ray://ADDRESS")
    p.add_argument("--cached-requests", type=int, default=400)
    p.add_argument("--fresh-requests", type=int, default=12)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--fresh-clients", type=int, default=4)
    p.add_argument("--items", type=int, default=1, help="items per request")
    p.add_argument("--max-seconds", type=float, default=240, help="per workload")
    p.add_argument("--mixed-fresh", type=int, nargs="+", default=[4, 8],
                   help="mixed: fresh requests per burst (one burst per value)")
    p.add_argument("--mixed-stored", type=int, nargs="+", default=[46, 192],
                   help="mixed: stored requests per burst")
    p.add_argument("--stored-distinct", type=int, default=8,
                   help="mixed: distinct stored candidates, verified before the bursts")
    p.add_argument("--src", type=Path, default=ROOT / "src",
                   help="the warpsmith source tree the service runs from, e.g. an older "
                        "commit's (git archive) to compare with")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()

    with tempfile.TemporaryDirectory(prefix="warpsmith-reward-load-") as tmp:
        health, runs, log_tail = measure(args, Path(tmp))
    result = {"machine": machine(), "service": health, "executor": args.executor,
              "src": str(args.src),
              "argv": sys.argv[1:], "runs": runs, "service_log_tail": log_tail}
    for run in runs:
        run["failed"] = sorted(run["failed"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(mixed_markdown(runs, args.executor) if args.mode == "mixed"
          else markdown(runs, args.executor))


if __name__ == "__main__":
    main()
