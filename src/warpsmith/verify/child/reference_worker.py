"""The baselines' process: `python -m warpsmith.verify.child.reference_worker - RESULT_FD`.

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
from ..inputs import case_inputs
from ..protocol import compile_name
from ..stopwatch import per_call_seconds, warm_up
from .models import _load_matching, _load_unsaved
from .timing import serve
from .worker import _stdin_bytes, _stdin_line, _stdin_line_soon

WARM_SEEDS = (1, 2)  # the warm-up's own inputs: never a timed set's


def main(fd: int) -> None:
    report: dict = {"stage": "setup", "error": None}
    try:
        job, shapes = _read_job()
        report["timing"] = _time(job, shapes, fd)
        report["stage"] = "done"
    except BaseException as e:  # the trusted side falls back, or says the baselines failed
        report["error"] = {"type": type(e).__name__, "message": str(e)[:2000],
                           "traceback": traceback.format_exc()[-4000:]}
    protocol.write_frame(fd, report)
    os.close(fd)
    os._exit(0)


def _read_job() -> tuple[dict, dict]:
    head, size = _stdin_line(), _stdin_line()
    if head is None or size is None or not size.isdigit():
        raise RuntimeError("the trusted side sent no job")
    job = json.loads(head)
    data = torch.load(io.BytesIO(_stdin_bytes(int(size))), weights_only=True,
                      map_location=job["device"])
    return job, data


def _time(job: dict, shapes: dict, fd: int) -> dict:
    device, name = job["device"], job["timed_shape"]
    startup: dict = {}  # the trusted side adds the start-up before main (Python, torch)
    task = load_task(job["task"])
    spec = shapes[name]
    shape = Shape(name, spec["values"])
    impls, notes, per_call = _impls(task, shape, spec, job, startup)
    channel = (lambda head, payload=b"": protocol.write_frame(fd, head, payload),
               _stdin_line_soon, _stdin_bytes)
    return serve(impls, task, channel, (_NoLaunches(), None), device,
                 ready={"impls": list(impls), "notes": notes, "per_call_s": per_call,
                        "startup_s": startup})


def _impls(task, shape: Shape, spec: dict, job: dict,
           startup: dict) -> tuple[dict, list[str], float]:
    """Eager (the reference built as the trusted side built it, holding its state) and each
    torch.compile mode, warmed up; a mode that raises is left out with a note. Returns them,
    the notes, and eager's seconds per call; `startup` gets the seconds of each step (the
    timing waits for them: docs/benchmarks/verifier.md)."""
    device, began = job["device"], time.perf_counter()
    eager = build_model(task, shape, device)
    _load_matching(eager, spec["state_dict"])
    _load_unsaved(eager, spec.get("buffers", {}))
    pool = [(seed, case_inputs(task, shape, device, seed, "timing")) for seed in WARM_SEEDS]
    startup["build_s"] = time.perf_counter() - began
    impls: dict = {}
    notes: list[str] = []
    with torch.no_grad(), tf32_policy(task):
        for mode in ["eager", *job["compile_modes"]]:
            name = "eager" if mode == "eager" else compile_name(mode)
            try:
                began = time.perf_counter()
                fn = eager if mode == "eager" else torch.compile(
                    eager, mode=None if mode == "default" else mode)
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
    return impls, notes, per_call


class _NoLaunches:
    """The launch log's place in the block code: the reference's launches are not counted."""

    @staticmethod
    def take() -> list:
        return []


if __name__ == "__main__":
    main(int(sys.argv[-1]))
