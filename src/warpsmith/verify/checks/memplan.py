"""A memory plan before anything is allocated: do the cases of a verification fit?

From a meta-device build of the task (no memory), the bytes of one call's inputs, parameters
and outputs give what each side holds. The checked calls are streamed (protocol.py): the
worker makes a call's inputs, runs it and hands its outputs over; the trusted side computes
that call's reference only then, compares and lets go, so one call's data is resident on
either side whatever the number of calls:

  trusted side    both reference models (the task's dtype and the high-precision copy), and
                  for the call being checked the larger of its forward (inputs and outputs in
                  both precisions, room for the reference's temporaries) and its comparison
                  (both references, the candidate's outputs copied over, chunked float64 work)
  candidate side  its model, the call's inputs (on the CPU with their copy, to see a write
                  into an input; on a GPU the trusted side reads its input buffers back
                  instead), its outputs and the copies it hands over; while timed, a block's sets of
                  inputs and every output of the block, and the L2 flush
  while timed     the trusted side times the baselines (baselines.py) with its own copy of
                  a block's sets and their outputs, the flush and the reference models
  baselines       on a GPU the baselines' process (baseline_process.py) builds and warms up
                  eager and torch.compile while the candidate is checked: the model, its
                  warm-up inputs (WARM_SETS) and a forward's peak. Left out of the plan, it
                  was the "candidate's" memory when the trusted side ran out: KernelBench
                  level 1 tasks 46 and 63 on an H100, honest kernels `crashed` for about
                  20 GiB the baselines' process held (2026-12-07). Where the plan does not
                  fit with it there, the process warms up after the checks instead
                  (`deferred`: slower, the same timing); counting it beside them made
                  level 1's norms need 105-147 GiB, past even an H200

A timing block holds `block_sets` sets on each side (baselines.py: as many calls as make the
block long enough to time, within BLOCK_SHARE of the budget per side). The plan decides that
count and the timer keeps to it: a timer that chose it from the free memory alone held 20 GiB
against a plan of 8 and had a candidate blamed for memory the plan never gave it (KernelBench
level 1 task 45 on the H200).

On a GPU both sides share the device's free memory; on the CPU, available RAM. When the
profile's plan does not fit, timing sets are cut to one. When not even that fits, the task is
too large for this machine: the verifier's limit, reported as the status `too_large` with
both numbers, never the candidate's failure.

The reference's temporaries are measured, not guessed: its forward runs on meta tensors under
a dispatch mode that counts the bytes of the tensors it makes and frees (`_Live`), whose peak
(`workspace`) covers intermediates far larger than the outputs (a convolution before a
global pooling: KernelBench level 2's plans were 2-4x under the H200's peaks). What no meta
tensor shows (cuDNN's and cuBLAS's workspaces) is guessed as TEMPORARIES outputs more, only
where the forward calls such a library (LIBRARY_OPS): for an elementwise op the guess was
its outputs once again in float64, 12 GiB of the 72 that kept KernelBench's ReLU off an
80 GB card. An allocation that still fails is caught by the pipeline and reported as
`too_large` too, and the candidate is blamed only for memory beyond its share.
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass, replace

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from ...config import VerifyProfile
from ...tasks.loader import build
from ...types import Task
from .correctness import CHUNK

BUDGET_FRACTION = 0.85  # of the free memory: the allocators' slack and the CUDA contexts
L2_FLUSH_BYTES = 256 << 20
TEMPORARIES = 1  # a library's hidden workspace, in units of the outputs (a guess)
# the prefixes of the aten ops (leading underscores dropped) whose kernels allocate what
# meta tensors do not show: cuDNN, cuBLAS, attention's and CUB's workspaces
LIBRARY_OPS = ("conv", "slow_conv", "thnn_conv", "cudnn", "miopen", "mkldnn", "mm", "bmm",
               "addmm", "baddbmm", "addbmm", "matmul", "linear", "scaled_dot_product",
               "flash_attention", "efficient_attention", "lstm", "gru", "rnn", "fft", "cufft",
               "linalg", "cholesky", "svd", "lu", "qr", "eig", "solve", "inverse", "ctc_loss",
               "embedding_bag", "sort", "argsort", "topk", "unique", "median", "kthvalue",
               "mode", "nonzero", "cum", "logcumsumexp")
COMPARE_CHUNKS = 8  # correctness.compare: ~8 float64 chunks of CHUNK elements at a time
BLOCK_SHARE = 0.15  # of the budget: each side's most for a timing block's sets and outputs
MAX_BLOCK_SETS = 512


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
    itemsize: int = 4  # bytes of an element of the task's dtype
    workspace: int = 0  # the forward's peak of the tensors it made, outputs included
    library: bool = True  # the forward calls a library whose workspace no meta tensor shows
    input_copy: bool = True  # the worker copies a call's inputs (the CPU; see sides)


def sizes(task: Task, shape: str, device: str) -> Sizes:
    inst = build(task, shape, device="meta")
    with torch.no_grad(), _Live() as live:
        out = inst.model(*inst.inputs)
    outs = out if isinstance(out, tuple | list) else [out]
    item = getattr(torch, task.dtype).itemsize
    high = (4 if device == "cuda" and item == 2 else 8) / item
    return Sizes(_bytes(inst.inputs), _bytes(list(inst.model.parameters()) +
                                             list(inst.model.buffers())), _bytes(outs), high,
                 item, live.peak, any(_library(op) for op in live.ops),
                 input_copy=device != "cuda")


def _library(op: str) -> bool:
    """`aten.convolution.default`: does its name start with one of LIBRARY_OPS?"""
    parts = op.split(".")
    return (parts[1] if len(parts) > 2 else op).lstrip("_").startswith(LIBRARY_OPS)


class _Live(TorchDispatchMode):
    """The peak bytes of the tensors an op made while they lived (views and in-place
    results are no new memory; inputs and parameters were there before)."""

    def __init__(self):
        super().__init__()
        self.now = self.peak = 0
        self.ops: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.add(str(func))
        out = func(*args, **(kwargs or {}))
        given = {id(a) for a in tree_leaves((args, kwargs)) if isinstance(a, torch.Tensor)}
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor) and id(t) not in given and not t._is_view():
                self._made(t, t.untyped_storage().nbytes())
        return out

    def _made(self, tensor, nbytes: int) -> None:
        self.now += nbytes
        self.peak = max(self.peak, self.now)
        weakref.finalize(tensor, self._freed, nbytes)

    def _freed(self, nbytes: int) -> None:
        self.now -= nbytes


def _bytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors if isinstance(t, torch.Tensor))


WARM_SETS = 2  # the baselines' process's warm-up inputs (child/reference_worker.WARM_SEEDS)


def needed(s: Sizes, timing: int, deferred: bool = False) -> int:
    """Bytes of every side at their joint peak: while a call is checked (the baselines'
    process warming up beside it where timed), or while timed (`timing`: the sets a timing
    block holds on each side). `deferred`: the baselines' process warms up after the checks,
    beside the reference models and the worker waiting to be timed."""
    (trusted, trusted_timed), (worker, worker_timed) = sides(s, timing)
    peaks = [trusted_timed + worker_timed, trusted + worker]
    if timing and deferred:
        peaks.append(s.params * (1 + s.high) + max(worker, worker_timed) + baselines_warming(s))
    elif timing:
        peaks[1] += baselines_warming(s)
    return int(max(peaks))


def baselines_warming(s: Sizes) -> int:
    """The baselines' process while the candidate is checked: its model, its warm-up inputs
    and a forward's peak (outputs and temporaries)."""
    return int(s.params + WARM_SETS * s.inputs + max(s.workspace, s.outputs))


def sides(s: Sizes, timing: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """((the trusted side's peak while checking, while timing), (the worker's, the same))
    in bytes; both timed peaks are 0 where nothing is timed (`timing`, the sets of a timing
    block: 0)."""
    models = s.params * (1 + s.high)
    # a forward's peak: the measured workspace (outputs included); the reference's at least
    # its outputs and as many temporaries, for what its library calls make out of sight
    own = max(s.workspace, s.outputs)
    work = max(s.workspace, s.outputs * (1 + (TEMPORARIES if s.library else 0)))
    forward = s.inputs * (1 + s.high) + s.outputs + work * s.high  # the high copy runs second
    comparison = s.outputs * (2 + s.high) + \
        COMPARE_CHUNKS * 8 * min(s.outputs // s.itemsize, CHUNK)
    # its inputs (and their copy, on the CPU), the outputs handed over and a forward's peak
    worker = s.params + (1 + s.input_copy) * s.inputs + s.outputs + own
    block = timing * (s.inputs + s.outputs) + L2_FLUSH_BYTES  # every call's set and output
    worker_timed = block + own + s.params
    trusted_timed = models + block + s.inputs + work  # + the fresh set copied into a slot
    if not timing:
        worker_timed = trusted_timed = 0
    return (int(models + max(forward, comparison)), int(trusted_timed)), \
        (int(worker), int(worker_timed))


def block_sets(s: Sizes, budget: int, timing_sets: int) -> int:
    """The most sets a timing block may hold: BLOCK_SHARE of the budget per side, at least
    the profile's timing sets."""
    per_set = max(1, s.inputs + s.outputs)
    return max(timing_sets, min(MAX_BLOCK_SETS, int(BLOCK_SHARE * budget) // per_set))


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


@dataclass(frozen=True)
class Plan:
    profile: VerifyProfile  # cut to fit
    cuts: tuple[str, ...]  # what was cut
    needed: int  # bytes, both sides together (0: no plan could be made)
    budget: int  # bytes available to them
    trusted: int = 0  # bytes: the trusted side's peak
    candidate: int = 0  # bytes: the worker's peak, checked or timed
    block_sets: int = MAX_BLOCK_SETS  # the most sets a timing block may hold (no plan: the cap)
    baselines: int = 0  # bytes: the baselines' process while it warms up
    deferred: bool = False  # the baselines' process warms up after the checks, not beside


def plan(task: Task, shape: str, prof: VerifyProfile, device: str,
         quiet: int | None = None) -> Plan:
    """The profile cut to fit; TooLarge when not even one timing set fits. `shape`: the
    largest shape to be checked. `quiet`: the budget with no other verification on the GPU
    (gpulock.Hold.quiet), which sizes the timing blocks, so that a plan made beside others
    is the one made alone; where the memory free now holds fewer, that is a cut."""
    try:
        s = sizes(task, shape, device)
    except Exception:  # the task's own code on meta tensors (`.item()`): no plan, no cut;
        return Plan(prof, (), 0, 0)  # an allocation that fails is still too_large
    budget = available(device)
    timed = device == "cuda"
    cuts = []
    most = block_sets(s, max(budget, quiet or 0), prof.timing_sets)
    for step, sets, cut in _ladder(prof, most, block_sets(s, budget, prof.timing_sets)):
        cuts += [cut] if cut else []
        for deferred in (False, True) if timed else (False,):
            if (bytes_ := needed(s, sets if timed else 0, deferred)) <= budget:
                trusted, worker = sides(s, sets if timed else 0)
                return Plan(step, tuple(cuts) + (DEFERRED,) * deferred, bytes_, budget,
                            max(trusted), max(worker), sets,
                            baselines_warming(s) if timed else 0, deferred)
    raise TooLarge(bytes_, budget, device)


DEFERRED = "the baselines' process warms up after the checks, not beside them"


def _ladder(prof: VerifyProfile, most: int, fitting: int):
    """(profile, sets a timing block holds, what was cut), from the most to the least.
    `fitting`: the most the memory free now holds."""
    yield prof, most, ""
    if prof.timing_sets < fitting < most:
        yield prof, fitting, f"timing blocks cut to {fitting} sets by the memory free now"
    if most > prof.timing_sets:
        yield prof, prof.timing_sets, f"timing blocks cut to {prof.timing_sets} calls"
    if prof.timing_sets > 1:  # the only counts the plan grows with: checked calls stream
        yield replace(prof, timing_sets=1), 1, "timing sets cut to 1"
