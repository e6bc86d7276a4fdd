"""`--generator reference`: a self-check of a suite before any model is paid for.

Each task's own reference is submitted as its candidate and verified with the rules that
forbid PyTorch switched off: the static scan (the reference is trusted code, not a kernel)
and the dynamic rules no-kernel-ran, kernel-time-share and forbidden-op. Everything else runs
as for any candidate: the reference and candidate processes, the comparison at the task's
tolerances over every seed and input variant, the memory the cases take, timing against eager
and torch.compile on a GPU, the gates. A task that passes is verifiable here; one that does
not says why (tolerances that do not hold against itself, a process out of memory, …).

On the CPU a task whose shapes are all over the profile's size limit is checked at a copy
with its module-level sizes halved until it fits (the note names them), or skipped and named
as too large. The admission warnings (constant output, …) go into each item's note.

The rules are switched off by replacing two functions of the verifier for the duration of one
verification, under a lock, in this process (so it verifies inline, never through an
executor), and nothing is written to the verdict cache: a real candidate with the reference's
source must never find this verdict there. A verify() parameter would replace this
(`allow_torch=True`: skip static.scan, drop TORCH_RULES from dynamic_problems and
timing.summary.timed_problems).
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import replace
from pathlib import Path

from ..config import profile as get_profile
from ..errors import TaskError
from ..tasks.admission import TooLarge, admission_warnings, cpu_sized
from ..tasks.counting import count_cost
from ..types import Task
from .generators import Job, Produced

TORCH_RULES = frozenset({"no-kernel-ran", "kernel-time-share", "forbidden-op"})
CPU_MAX_FLOPS = 500_000_000  # a call; the quick profile makes about a dozen on each side
_RULES_OFF = threading.Lock()


class ReferenceGenerator:
    def produce(self, job: Job) -> Produced:
        from ..verify.pipeline import verify

        candidate = write_reference_candidate(job.task, job.workdir)
        try:
            task, sized = checked_task(job.task, job.device, job.profile)
        except TooLarge as e:
            notes = [f"admission: {w}" for w in admission_warnings(job.task)]
            return Produced(status="too_large",  # no candidate: the runner would verify it
                            note="; ".join([f"skipped on the CPU: {e}", *notes]))
        notes = [f"admission: {w}" for w in admission_warnings(task)]  # at the size checked
        try:
            with torch_rules_off():
                verdict = verify(task, candidate, device=job.device, profile=job.profile,
                                 store=None, use_cache=False)
        except Exception as e:  # the verifier's own limit on this task: what a self-check finds
            return Produced(status=_verifier_status(e), note="; ".join([
                f"the verifier raised {type(e).__name__}: {str(e).splitlines()[0][:300]}",
                *sized, *notes]))
        verdict = replace(verdict, task=job.task.name)
        return Produced(candidate=candidate, verdict=verdict, note="; ".join([*sized, *notes]))


def _verifier_status(error: Exception) -> str:
    import gc

    import torch

    gc.collect()  # the failed verification's tensors, before the next task allocates
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    if isinstance(error, torch.OutOfMemoryError | MemoryError):
        return "too_large"
    return "task_error" if isinstance(error, TaskError) else "verifier_error"


def write_reference_candidate(task: Task, workdir: Path) -> Path:
    """The task's file with `ModelNew` as its Model: same constructor, same forward."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"{task.title.replace('/', '_')}_reference.py"
    path.write_text(task.source + "\n\nclass ModelNew(Model):\n    pass\n")
    return path


def checked_task(task: Task, device: str, profile: str) -> tuple[Task, list[str]]:
    """The task as it is on a GPU, or where one of its shapes fits the CPU; else a halved
    copy (TooLarge when none fits), with a note naming the sizes checked."""
    if device != "cpu":
        return task, []
    limit = get_profile(profile).cpu_max_bytes
    if any(count_cost(task, s.name).bytes <= limit for s in task.shapes):
        return task, []
    shrunk, shape = cpu_sized(task, limit, CPU_MAX_FLOPS)
    values = ", ".join(f"{k}={v}" for k, v in shrunk.shape(shape).values.items())
    return shrunk, [f"checked on the CPU at {values or 'its own sizes'} (its own sizes are "
                    "over the CPU limit)"] if shrunk is not task else []


@contextlib.contextmanager
def torch_rules_off():
    from ..verify import pipeline, static
    from ..verify.timing import summary

    # every place the rules run: the checked calls' and the timed calls' (on a GPU, each
    # timing block's watched call runs them again; missing them rejected every task there)
    with _RULES_OFF:
        scan, dynamic, timed = static.scan, pipeline.dynamic_problems, summary.timed_problems
        static.scan = lambda source: static.Scan("none", ())
        pipeline.dynamic_problems = lambda report, names: [
            p for p in dynamic(report, names) if p[0] not in TORCH_RULES]
        summary.timed_problems = lambda report, triton: [
            p for p in timed(report, triton) if p[0] not in TORCH_RULES]
        try:
            yield
        finally:
            static.scan, pipeline.dynamic_problems = scan, dynamic
            summary.timed_problems = timed
