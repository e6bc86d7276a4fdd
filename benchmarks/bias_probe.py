"""Where the trusted-baseline bias comes from (docs/benchmarks/verifier.md): the same eager
reference timed the verifier's way in four kinds of process, one after the other on one GPU.

    in-process    this process (where verify/timing/baselines.py times eager and torch.compile)
    subprocess    a plain child process
    bwrap         a child inside the candidate's sandbox without its seccomp filter
    bwrap+seccomp a child inside the whole sandbox (as the candidate's worker runs)

Each child times CALLS calls two ways, interleaved: `sync-first` is stopwatch.timed_call (the
end event recorded after a device-wide synchronize, so work on a side stream counts), and
`stream` records the end event as soon as the call returns (the current stream's work only).
The gap between them is the host's synchronize-and-record latency, paid inside the interval.

    . benchmarks/gpu_env.sh; python3 benchmarks/bias_probe.py [--calls 300] TASK:SHAPE ...
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))


def measure(spec: str, calls: int, device: str) -> dict:
    import torch

    from warpsmith.tasks.loader import build, tf32_policy
    from warpsmith.tasks.suite import resolve_task
    from warpsmith.verify.timing.stopwatch import flush_buffer, timed_call, warm_up

    ref, shape = spec.rsplit(":", 1)
    task = resolve_task(ref)
    inst = build(task, shape, device=device, seed=1)
    flush = flush_buffer(device)
    times: dict[str, list[float]] = {"sync-first": [], "stream": []}
    with torch.no_grad(), tf32_policy(task):
        warm_up(inst.model, [(0, inst.inputs)], 1.0)
        for _ in range(calls):
            times["sync-first"].append(timed_call(inst.model, inst.inputs, flush)[0])
            times["stream"].append(_stream_only(inst.model, inst.inputs, flush))
    return {k: round(statistics.median(v), 2) for k, v in times.items()}


def _stream_only(fn, inputs, flush) -> float:
    import time

    import torch

    flush.zero_()
    if flush.device.type != "cuda":  # a dry run on a CPU: the host's clock
        start = time.perf_counter_ns()
        fn(*inputs)
        return (time.perf_counter_ns() - start) / 1000.0
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn(*inputs)
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000.0


def child_argv(specs: list[str], calls: int, device: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--child", "--calls", str(calls),
            "--device", device, *specs]


def _copied(specs: list[str], uid) -> tuple[list[str], Path]:
    """Task files copied to a folder of the job's uid, bound read-only in the sandbox as
    the worker's job folder is."""
    from warpsmith.verify.isolation import jail

    inbox = Path(tempfile.mkdtemp(prefix="bias-probe-", dir="/dev/shm"))
    out = []
    for spec in specs:  # TASK:SHAPE, or any colon-separated parts: each file among them
        parts = [str(shutil.copy(p, inbox / Path(p).name)) if p.startswith("/") else p
                 for p in spec.split(":")]
        out.append(":".join(parts))
    jail.give(inbox, uid)
    return out, inbox


def run_child(kind: str, specs: list[str], calls: int, device: str,
              argv: list[str] | None = None) -> dict:
    """`argv`: the child's command line before its specs (this script's own by default)."""
    from warpsmith.verify.isolation import jail

    head = argv or child_argv([], calls, device)
    argv, fds, close, inbox = [*head, *specs], (), (), None
    scratch = Path(tempfile.mkdtemp(prefix="bias-probe-"))
    if kind.startswith("bwrap"):
        box = jail.current()
        if not box.ok:
            return {"error": f"no sandbox: {box.detail}"}
        if kind == "bwrap":
            box = dataclasses.replace(box, seccomp=b"")
        uid = jail.new_uid()
        jail.give(scratch, uid)
        specs, inbox = _copied(specs, uid)  # the job's uid may not read the checkout
        wrapped = jail.wrap(box, [*head, *specs], writable=[scratch],
                            uid=uid, keep_fds=(), readonly=[inbox])
        argv, fds, close = wrapped.argv, wrapped.pass_fds, wrapped.close_after
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"),
                                                       os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=scratch, pass_fds=fds, start_new_session=True)
    for fd in close:
        os.close(fd)
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        if inbox:
            shutil.rmtree(inbox, ignore_errors=True)
    if proc.returncode != 0:
        return {"error": err.decode(errors="replace")[-600:]}
    return json.loads(out.decode().strip().splitlines()[-1])


def _absolute(spec: str) -> str:
    ref, shape = spec.rsplit(":", 1)
    return f"{Path(ref).resolve()}:{shape}" if Path(ref).is_file() else spec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+", help="TASK:SHAPE, e.g. level1/relu:gpu")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--device", default="cuda", help="cpu: a dry run of the script itself")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps({s: measure(s, args.calls, args.device) for s in args.specs}), flush=True)
        return
    args.specs = [_absolute(s) for s in args.specs]  # the children run in a scratch folder
    rows = {"in-process": {s: measure(s, args.calls, args.device) for s in args.specs}}
    for kind in ("subprocess", "bwrap", "bwrap+seccomp"):
        rows[kind] = run_child(kind, args.specs, args.calls, args.device)
    rows["in-process-again"] = {s: measure(s, args.calls, args.device) for s in args.specs}
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
