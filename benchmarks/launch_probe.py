"""Where the worker's launch time goes (docs/benchmarks/kernelbench.md: `launch_us`, 240-900
µs a call in the verifier's worker against about 11 µs for a launch in a plain process).

A candidate's forward is called CALLS times at a task's shape with the worker's in-process
hooks added one at a time (`plain`, then the launch log, the dispatch guard's warm-up, the
code watch's audit hook, the thread watch), in this process and in a child inside the whole
sandbox (bubblewrap and seccomp, as the worker runs). For each: the host's time for the call
to return (no synchronize inside it), and the GPU's time between events around it. Then a
cProfile of the calls with every hook on, the top entries by own time.

    . benchmarks/gpu_env.sh; python3 benchmarks/launch_probe.py [--calls 200] \
        level1/relu:gpu:tests/kernels/good/relu_triton.py ...
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import json
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

HOOKS = ("plain", "launch_log", "guard_warm", "codewatch", "thread_watch")


def _install(hook: str, candidate: str, device: str) -> None:
    from warpsmith.verify.child import codewatch, worker
    from warpsmith.verify.child.launches import LaunchLog

    if hook == "launch_log":
        LaunchLog(candidate).install()
    elif hook == "guard_warm":
        worker._warm_guard(device)
    elif hook == "codewatch":
        codewatch.install()
    elif hook == "thread_watch":
        worker._ThreadWatch().__enter__()


def _model(spec: str, device: str):
    import torch

    from warpsmith.tasks.loader import build
    from warpsmith.tasks.suite import resolve_task

    ref, shape, path = spec.split(":")
    inst = build(resolve_task(ref), shape, device=device, seed=1)
    loaded = importlib.util.spec_from_file_location("candidate", path)
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    with torch.device(device):
        model = module.ModelNew(*inst.init_inputs).to(device).eval()
    model.load_state_dict(inst.model.state_dict(), strict=False)
    return model, inst.inputs


def _times(model, inputs, calls: int, device: str) -> dict:
    import torch

    host, gpu = [], []
    for _ in range(calls):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        t0 = time.perf_counter()
        model(*inputs)
        host.append((time.perf_counter() - t0) * 1e6)
        if device == "cuda":
            end.record()
            end.synchronize()
            gpu.append(start.elapsed_time(end) * 1000.0)
    return {"host_us": round(statistics.median(host), 1),
            "gpu_us": round(statistics.median(gpu), 1) if gpu else None}


def _after_sleep(model, inputs, device: str, rounds: int = 50) -> dict:
    """The block's shape as the worker runs it: idle in a wait (here a 5 ms sleep, there a
    read of GO), then an event record, one call, a synchronize. The host's time of each step
    (the trusted clock's fixed 650-800 us a block: the start record alone measured 117-149 us
    in the worker)."""
    import torch

    steps: dict[str, list[float]] = {"record_us": [], "call_us": [], "sync_us": []}
    for _ in range(rounds):
        if device == "cuda":
            torch.cuda.synchronize()
            ev = torch.cuda.Event(enable_timing=True)
        time.sleep(0.005)
        t0 = time.perf_counter()
        if device == "cuda":
            ev.record()
        t1 = time.perf_counter()
        model(*inputs)
        t2 = time.perf_counter()
        if device == "cuda":
            torch.cuda.synchronize()
        t3 = time.perf_counter()
        for key, (a, b) in zip(steps, ((t0, t1), (t1, t2), (t2, t3)), strict=True):
            steps[key].append((b - a) * 1e6)
    return {k: round(statistics.median(v), 1) for k, v in steps.items()}


_WAKER = """
import os, signal, sys, time
for line in sys.stdin:
    time.sleep(0.005)
    os.kill(int(line), signal.SIGCONT)
"""


def _after_stop(model, inputs, device: str, rounds: int = 30) -> dict:
    """As _after_sleep, but idle the way the verifier idles a worker: stopped (SIGSTOP) and
    continued (SIGCONT, here by a helper process 5 ms later), the record made right after."""
    import os
    import signal
    import subprocess

    import torch

    waker = subprocess.Popen([sys.executable, "-c", _WAKER], stdin=subprocess.PIPE, text=True)
    steps: dict[str, list[float]] = {"record_us": [], "call_us": [], "sync_us": []}
    try:
        for _ in range(rounds):
            if device == "cuda":
                torch.cuda.synchronize()
                ev = torch.cuda.Event(enable_timing=True)
            waker.stdin.write(f"{os.getpid()}\n")
            waker.stdin.flush()
            os.kill(os.getpid(), signal.SIGSTOP)
            t0 = time.perf_counter()
            if device == "cuda":
                ev.record()
            t1 = time.perf_counter()
            model(*inputs)
            t2 = time.perf_counter()
            if device == "cuda":
                torch.cuda.synchronize()
            t3 = time.perf_counter()
            for key, (a, b) in zip(steps, ((t0, t1), (t1, t2), (t2, t3)), strict=True):
                steps[key].append((b - a) * 1e6)
    finally:
        waker.stdin.close()
        waker.wait(timeout=5)
    return {k: round(statistics.median(v), 1) for k, v in steps.items()}


def _guarded(step, *args) -> dict:
    try:
        return step(*args)
    except Exception as e:  # a probe step that cannot run here (a sandbox's rule): said
        return {"error": f"{type(e).__name__}: {e}"[:200]}


def measure(specs: list[str], calls: int, device: str, stop: bool = True) -> dict:
    import torch

    built = {s: _model(s, device) for s in specs}
    rows: dict = {}
    with torch.no_grad():
        for model, inputs in built.values():  # compile and warm before any hook
            _times(model, inputs, 5, device)
        for hook in HOOKS:
            _install(hook, specs[0].split(":")[2], device)
            rows[hook] = {s: _times(m, x, calls, device) for s, (m, x) in built.items()}
        rows["after_sleep"] = {s: _guarded(_after_sleep, m, x, device)
                               for s, (m, x) in built.items()}
        if stop:  # not in the sandbox: its child stayed stopped there (its waker's signal)
            rows["after_stop"] = {s: _guarded(_after_stop, m, x, device)
                                  for s, (m, x) in built.items()}
        prof = cProfile.Profile()
        with prof:
            for model, inputs in built.values():
                _times(model, inputs, calls, device)
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(18)
    rows["profile_top"] = text.getvalue().splitlines()[-24:]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+", help="TASK:SHAPE:CANDIDATE_FILE")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--device", default="cuda", help="cpu: a dry run of the script itself")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.specs, args.calls, args.device, stop=False)), flush=True)
        return
    import bias_probe

    specs = [":".join([r, sh, str(Path(p).resolve())]) for r, sh, p in
             (s.split(":") for s in args.specs)]  # the sandboxed child gets copies of them
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", "--calls",
            str(args.calls), "--device", args.device]
    rows = {"in-process": measure(specs, args.calls, args.device),
            "bwrap+seccomp": bias_probe.run_child("bwrap+seccomp", specs, args.calls,
                                                  args.device, argv=argv)}
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
