"""The baselines' process: `python -m warpsmith.verify.child.reference_worker DEVICE - RESULT_FD`.

Eager PyTorch and torch.compile of the task's reference, timed on the trusted side's clock
the way the candidate is: the same protocol (child/timing.serve: `ready`, the sets' buffers,
`idle`, GO, a `block` frame carrying the outputs), the same block code, the same pipes, the
same stop and resume around each block. Timed in the trusted process instead, the baselines
skipped the round trip that every candidate block pays (GO's transit, the worker's wake-up,
the frame with its outputs: 600-800 us a block on the H100), and that fixed cost was a bias
against the candidate of 10-15 % at 3-4 calls a block (docs/benchmarks/verifier.md).

No candidate code runs here: it is started outside the sandbox (torch.compile's caches are
the trusted side's, warm across verifications), and it is not watched. Its job on stdin: a
JSON line (task, device, timed shape, compile modes, warm-up seconds), the size of the
shapes' parameters as a line, then those parameters (torch.save bytes, as the candidate's).
"""

from __future__ import annotations

import gc
import io
import json
import os
import sys
import time
import traceback

import torch

from ...tasks.loader import build_model, load_task, tf32_policy
from ...types import Shape
from .. import protocol
from ..checks.inputs import case_inputs
from ..protocol import compile_name
from ..timing.stopwatch import per_call_seconds, warm_up
from .models import load_matching, load_unsaved
from .timing import serve
from .worker import stdin_bytes, stdin_line, stdin_line_soon

WARM_SEEDS = (1, 2)  # the warm-up's own inputs: never a timed set's


def main(fd: int) -> None:
    report: dict = {"stage": "setup", "error": None}
    try:
        job, shapes = _read_job()
        kept: tuple | None = None
        while job is not None:
            report["timing"], kept = _time(job, shapes, fd, kept)
            if not job.get("keep"):
                break
            # kept for the next verification of this task: its timing sets, warm-up inputs
            # and the job's copy of the state (the modules hold their own) freed before the
            # trusted side plans the next one's memory
            shapes = None
            _free(job["device"])
            protocol.write_frame(fd, {"frame": protocol.TIMING, "kind": "parked"})
            job, shapes = _read_job(at_end=None)
        report["stage"] = "done"
    except BaseException as e:  # the trusted side falls back, or says the baselines failed
        report["error"] = {"type": type(e).__name__, "message": str(e)[:2000],
                           "traceback": traceback.format_exc()[-4000:]}
    protocol.write_frame(fd, report)
    os.close(fd)
    os._exit(0)


def _read_job(at_end: object = RuntimeError) -> tuple[dict | None, dict]:
    """The next job; at the end of input, RuntimeError (the first job), or (None, {}) (a
    kept process whose trusted side ended it)."""
    head = stdin_line()
    if head is None and at_end is None:
        return None, {}
    size = stdin_line()
    if head is None or size is None or not size.isdigit():
        raise RuntimeError("the trusted side sent no job")
    job = json.loads(head)
    data = torch.load(io.BytesIO(stdin_bytes(int(size))), weights_only=True,
                      map_location=job["device"])
    return job, data


def _time(job: dict, shapes: dict, fd: int, kept: tuple | None) -> tuple[dict, tuple]:
    """One verification's timing; `kept`: the last one's (key, task, eager, compiled
    implementations), reused where this job is for the same task, shape and modes (its
    state loaded into the same modules, every implementation warmed up again)."""
    device, name = job["device"], job["timed_shape"]
    startup: dict = {}  # the trusted side adds the start-up before main (Python, torch)
    spec = shapes[name]
    shape = Shape(name, spec["values"])
    key = (job["task"], name, json.dumps(spec["values"], sort_keys=True, default=str),
           device, tuple(job["compile_modes"]))
    if kept is not None and kept[0] == key:
        task, eager, made = kept[1], kept[2], kept[3]
        startup["reused"] = 1.0
    else:
        task, eager, made = load_task(job["task"]), None, {}
    impls, notes, per_call, eager = _impls(task, shape, spec, job, startup, eager, made)
    channel = (lambda head, payload=b"": protocol.write_frame(fd, head, payload),
               stdin_line_soon, stdin_bytes)
    timing = serve(impls, task, channel, (_NoLaunches(), None), device,
                   ready={"impls": list(impls), "notes": notes, "per_call_s": per_call,
                          "startup_s": startup}, may_end_first=bool(job.get("keep")))
    return timing, (key, task, eager, impls)


def _free(device: str) -> None:
    gc.collect()
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def _impls(task, shape: Shape, spec: dict, job: dict, startup: dict, eager=None,
           made: dict | None = None) -> tuple[dict, list[str], float, torch.nn.Module]:
    """Eager (the reference built as the trusted side built it, holding its state) and each
    torch.compile mode, warmed up; a mode that raises is left out with a note. Returns them,
    the notes, eager's seconds per call and eager; `startup` gets the seconds of each step
    (the timing waits for them: docs/benchmarks/verifier.md). `eager` and `made`: a kept
    process's model and compiled implementations, given this job's state in place (the
    compiled graphs read the same parameters)."""
    device, began = job["device"], time.perf_counter()
    made = made or {}
    eager = eager if eager is not None else build_model(task, shape, device)
    load_matching(eager, spec["state_dict"])
    load_unsaved(eager, spec.get("buffers", {}))
    pool = [(seed, case_inputs(task, shape, device, seed, "timing")) for seed in WARM_SEEDS]
    startup["build_s"] = time.perf_counter() - began
    impls: dict = {}
    notes: list[str] = []
    with torch.no_grad(), tf32_policy(task):
        for mode in ["eager", *job["compile_modes"]]:
            name = "eager" if mode == "eager" else compile_name(mode)
            try:
                began = time.perf_counter()
                # `made.get(name) or ...` asked a compiled module for its truth, which
                # Python reads from __len__ where a module has no __bool__: a kept process's
                # compiled reference "raised TypeError: Model does not support len()" and
                # every second verification lost its torch.compile baseline (H100)
                fn = eager if mode == "eager" else made.get(name)
                if fn is None:
                    fn = torch.compile(eager, mode=None if mode == "default" else mode)
                warm_up(fn, pool, job["warmup_s"])
                impls[name] = fn
                startup[f"{name}_warm_s"] = time.perf_counter() - began
            except torch.OutOfMemoryError:
                raise
            except Exception as e:  # the task's reference under torch.compile
                if mode == "eager":
                    raise
                notes.append(f"{name} of the reference raised {type(e).__name__}: "
                             f"{str(e)[:200]}; it is not a baseline of this verdict")
        per_call = per_call_seconds(eager, pool)
    return impls, notes, per_call, eager


class _NoLaunches:
    """The launch log's place in the block code: the reference's launches are not counted."""

    @staticmethod
    def take() -> list:
        return []


def _get_ready(device: str) -> None:
    """Before its job is read (a spare waits for it: baseline_process.SPARES): what every
    job needs, torch.compile's own imports and the CUDA context. What fails here fails
    again in the job, where main reports it."""
    try:
        import torch._dynamo  # noqa: F401
        import torch._inductor.compile_fx  # noqa: F401

        if device == "cuda":
            torch.zeros(1, device="cuda")
    except Exception:
        pass


if __name__ == "__main__":
    # argv: [device] - RESULT_FD
    _get_ready(sys.argv[1] if len(sys.argv) > 3 else "")
    main(int(sys.argv[-1]))
