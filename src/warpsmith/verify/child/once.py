"""One forward of a candidate outside the verifier's worker, for a tool that watches the
process (Nsight Compute, compute-sanitizer): the task's inputs at one shape, the candidate
built and loaded as the worker does, a warm-up call (Triton compiles and autotunes there),
then the watched call between cudaProfilerStart and Stop. Nothing is compared here: the
verifier already judged the outputs; the tool's own log is what is read.

    python -m warpsmith.verify.child.once TASK_FILE CANDIDATE SHAPE"""

from __future__ import annotations

import sys
import time


def forward_once(task_file: str, candidate: str, shape: str) -> None:
    import torch

    from ...tasks.loader import build, load_task, tf32_policy
    from .models import make_model, spec_of
    from .worker import import_candidate

    task = load_task(task_file)
    inst = build(task, shape, device="cuda")
    module = import_candidate(candidate)
    # built as the worker builds it: the reference's state, the task's MODE
    model = make_model(module, spec_of(inst.model, inst.init_inputs, inst.mode),
                       torch.device("cuda"))
    with torch.no_grad(), tf32_policy(task):
        model(*inst.inputs)
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        model(*inst.inputs)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()


if __name__ == "__main__":
    started = time.perf_counter()
    forward_once(*sys.argv[1:4])
    print(f"forward done in {time.perf_counter() - started:.1f} s", flush=True)
