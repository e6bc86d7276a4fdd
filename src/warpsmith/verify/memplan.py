"""A memory plan before anything is allocated: do the cases of a verification fit?

From a meta-device build of the task (no memory), the bytes of one call's inputs, parameters
and outputs give what each side holds at the planned number of cases:

  trusted side    both reference models (the task's dtype and the high-precision copy), the
                  kept outputs of every checked case in both precisions and the candidate's
                  outputs copied back, plus one case being evaluated (its inputs in both
                  precisions and room for the reference's temporaries)
  candidate side  every case's inputs (the worker makes them all before the first call), the
                  outputs it holds for the trusted side, its model and eager's, the L2 flush

On a GPU both sides share the device's free memory; on the CPU, available RAM. When the
profile's plan does not fit, it is cut in this order: timing sets to one, input variants to
the mixed-sign one (which every plan has), seeds to one, the secret twin off. When not
even that fits, the task is too large for this machine: the verifier's limit, reported as the
status `too_large` with both numbers, never the candidate's failure.

The estimate is coarse (the reference's temporaries are a guess); an allocation that still
fails is caught by the pipeline and reported as `too_large` too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

import torch

from ..config import VerifyProfile
from ..tasks.loader import build
from ..types import Task

BUDGET_FRACTION = 0.85  # of the free memory: the allocators' slack and the CUDA contexts
L2_FLUSH_BYTES = 256 << 20
TEMPORARIES = 2  # the reference's intermediates, in units of its output (a guess)


class TooLarge(Exception):
    def __init__(self, needed: int, available: int, device: str):
        self.needed, self.available, self.device = needed, available, device
        where = "GPU memory" if device == "cuda" else "RAM"
        super().__init__(f"the task's smallest plan needs about {needed / 2**30:.1f} GiB of "
                         f"{where} and {available / 2**30:.1f} GiB is free; this is the "
                         "verifier's limit on this machine, not the candidate's")


@dataclass(frozen=True)
class Sizes:
    inputs: int
    params: int
    outputs: int
    high: float  # bytes of the high-precision copy per byte of the task's dtype


def sizes(task: Task, shape: str, device: str) -> Sizes:
    inst = build(task, shape, device="meta")
    with torch.no_grad():
        out = inst.model(*inst.inputs)
    outs = out if isinstance(out, tuple | list) else [out]
    item = getattr(torch, task.dtype).itemsize
    high = (4 if device == "cuda" and item == 2 else 8) / item
    return Sizes(_bytes(inst.inputs), _bytes(list(inst.model.parameters()) +
                                             list(inst.model.buffers())), _bytes(outs), high)


def _bytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors if isinstance(t, torch.Tensor))


def needed(s: Sizes, checked: int, timing: int) -> int:
    trusted = s.params * (1 + s.high) + checked * s.outputs * (2 + s.high) + \
        s.inputs * (1 + s.high) + TEMPORARIES * s.outputs * s.high
    candidate = (checked + timing) * s.inputs + checked * s.outputs + 2 * s.params + \
        2 * s.outputs + (L2_FLUSH_BYTES if timing else 0)
    return int(trusted + candidate)


def available(device: str) -> int:
    if device == "cuda":
        free, _ = torch.cuda.mem_get_info()
        return int(free * BUDGET_FRACTION)
    try:
        with open("/proc/meminfo") as f:
            info = dict(line.split(":", 1) for line in f)
        return int(int(info["MemAvailable"].split()[0]) * 1024 * BUDGET_FRACTION)
    except (OSError, KeyError, ValueError):
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES") * BUDGET_FRACTION)


def cases(prof: VerifyProfile, twin: bool, timed: bool) -> tuple[int, int]:
    """(checked calls at the largest shape, timing sets) of a profile's plan."""
    mixed = 0 if "mixed" in prof.variants else 1  # reference._plan adds it to every plan
    checked = prof.seeds + len(prof.variants) + mixed + (2 if twin else 0)
    return checked, prof.timing_sets if timed else 0


def plan(task: Task, shape: str, prof: VerifyProfile, device: str,
         twin: bool = True) -> tuple[VerifyProfile, bool, list[str]]:
    """(the profile cut to fit, whether the twin is kept, what was cut); TooLarge when not
    even one seed and one timing set fit. `shape`: the largest shape to be checked."""
    try:
        s = sizes(task, shape, device)
    except Exception:  # the task's own code on meta tensors (`.item()`): no plan, no cut;
        return prof, twin, []  # an allocation that fails is still too_large (pipeline)
    budget = available(device)
    timed = device == "cuda"
    cuts = []
    for step in _ladder(prof, twin):
        prof, twin, cut = step
        if cut:
            cuts.append(cut)
        if needed(s, *cases(prof, twin, timed)) <= budget:
            return prof, twin, cuts
    raise TooLarge(needed(s, *cases(prof, twin, timed)), budget, device)


def _ladder(prof: VerifyProfile, twin: bool):
    yield prof, twin, ""
    if prof.timing_sets > 1:
        prof = replace(prof, timing_sets=1)
        yield prof, twin, "timing sets cut to 1"
    if prof.variants:
        prof = replace(prof, variants=())
        yield prof, twin, "input variants cut to the mixed-sign one"
    if prof.seeds > 1:
        prof = replace(prof, seeds=1)
        yield prof, twin, "seeds cut to 1"
    if twin:
        yield prof, False, "the secret twin shape left out"
