"""Eager and torch.compile timed in the trusted process, block by block between the
candidate's, on the same GPU (issue: a candidate must not be able to slow its baselines).

The worker times only the candidate, one block when asked (child/timing.py). The trusted
side draws the order of every block (SystemRandom: the worker cannot predict when a
baseline runs) and times each baseline's blocks itself while every process of the worker is
stopped (proctree.stopped). Both sides make the same timing sets from the same seeds (fresh
sets no checked call used) in their own memory, so nothing the candidate writes reaches a
baseline's inputs. torch.compile's caches are the trusted process's, out of the sandbox.

A baseline that cannot be built here (torch.compile of the task raising) is left out with a
note, never blamed on the candidate; an out-of-memory is the verifier's limit (too_large).
"""

from __future__ import annotations

import functools
import random

import torch

from ..tasks.loader import tf32_policy
from ..types import Shape, Task
from .collect import blame_if_held, others_bytes
from .inputs import case_inputs
from .protocol import END, Malformed, go_line, untrusted_json
from .reference import Prepared
from .stopwatch import Slots, clock_and_temperature, flush_buffer, timed_call, warm_up

CANDIDATE = "candidate"


class Baselines:
    """sandbox.run_worker's on_timing: answers each timing frame with GO or END, timing the
    baselines' turns before it answers."""

    def __init__(self, task: Task, prepared: Prepared, prof, device: str = "cuda"):
        self.task, self.prepared, self.prof, self.device = task, prepared, prof, device
        names = [CANDIDATE, "eager"] + [_compile_name(m) for m in prof.compile_modes]
        self.rng = rng = random.SystemRandom()
        self.turns = [(b, name) for b in range(prof.blocks)
                      for name in rng.sample(names, len(names))]
        self.next_turn, self.waiting, self.ready = 0, False, False
        self.times: dict[str, list[float]] = {name: [] for name in names}
        self.probes: list = []
        self.own_launches: list[int] = []  # per timed call, the candidate's Triton launches
        self.aliased = 0  # timed calls whose output lay in an input's memory
        self.guarded: list[dict] = []  # per block, what the watched call did (child/timing.py)
        self.block_seeds: list[list[int]] = []  # per candidate block, a fresh set per call
        # the timing cases, whose probe positions the calls of a block take in turn
        self.sets = max(1, sum(c.variant == "timing" for c in prepared.cases))
        self.clocks: list[dict] = []
        self.notes: list[str] = []  # baselines left out, and why
        self.too_large = ""  # the baselines' memory did not fit: the verifier's limit
        self.impls: dict = {}
        # what other processes held of the GPU before the worker started (collect.py)
        self.others = others_bytes() if device == "cuda" else None

    def __call__(self, head: dict, payload: bytes) -> bytes:
        try:
            return self._answer(head, payload)
        except torch.OutOfMemoryError:
            self._blame_if_held()
            raise  # the plan's estimate fell short: the verifier's limit (too_large)

    def _answer(self, head: dict, payload: bytes) -> bytes:
        kind = head.get("kind")
        if kind == "ready" and not self.ready:
            self.ready = True
            if not self._set_up():
                return self._close()
        elif kind == "block" and self.waiting:
            self._take(payload)
        else:
            raise Malformed(f"a timing frame {str(kind)[:40]!r} that was not asked for")
        return self._advance()

    def _set_up(self) -> bool:
        name = self.prepared.timed_shape
        shape = Shape(name, self.prepared.shapes[name]["values"])
        try:
            pool = [(i, case_inputs(self.task, shape, self.device, c.seed, c.variant))
                    for i, c in enumerate(self.prepared.cases) if c.variant == "timing"]
            self.slots, self.flush = Slots(pool), flush_buffer(self.device)
            eager = self.prepared.models[name]
            makers = {"eager": lambda: eager} | {_compile_name(m): functools.partial(
                torch.compile, eager, mode=None if m == "default" else m)
                for m in self.prof.compile_modes}
            with torch.no_grad(), tf32_policy(self.task):
                for impl, make in makers.items():
                    self._warm(impl, make, pool)
        except torch.OutOfMemoryError as e:
            self._blame_if_held()
            self.too_large = f"the baselines' timing sets did not fit in GPU memory ({e})"[:300]
            return False
        return "eager" in self.impls

    def _blame_if_held(self) -> None:
        """A candidate whose process held memory the baselines needed gets `crashed`, not a
        too_large nobody is blamed for (E48)."""
        if self.others is not None:
            blame_if_held(self.task, self.prepared, self.others, self.prof.timing_sets)

    def _warm(self, name: str, make, pool) -> None:
        """Build and warm one baseline up (torch.compile compiles here), or leave it out."""
        try:
            fn = make()
            warm_up(fn, pool, self.prof.warmup_s)
            self.impls[name] = fn
        except torch.OutOfMemoryError:
            raise
        except Exception as e:  # the task's reference under torch.compile: not the candidate's
            self.notes.append(f"{name} of the reference raised {type(e).__name__}: "
                              f"{str(e)[:200]}; it is not a baseline of this verdict")
            self.times.pop(name, None)

    def _take(self, payload: bytes) -> None:
        try:
            block = untrusted_json(payload)
        except ValueError as e:
            raise Malformed(f"a timing block that is not JSON ({e})") from e
        problem = _block_problem(block, self.prof.calls_per_block)
        if problem:
            raise Malformed(f"a timing block {problem}")
        self.times[CANDIDATE] += block["times_us"]  # types: outcome.timing_problem
        # Which call (its seed) and which positions each probe is for: ours, never the
        # worker's word for it (a probe per call, in order: _block_problem)
        block_id = len(self.block_seeds) - 1
        self.probes += [p | {"block": block_id, "call": i, "case": i % self.sets}
                        if isinstance(p, dict) else p for i, p in enumerate(block["probes"])]
        self.own_launches += block["own_launches"]
        self.aliased += block["aliased"]
        self.guarded.append(block["guarded"])
        self.waiting = False
        self._turn_done()

    def _advance(self) -> bytes:
        """Time the baselines' turns up to the candidate's next; GO for that one, END when
        every block is done."""
        with torch.no_grad(), tf32_policy(self.task):
            while self.next_turn < len(self.turns):
                name = self.turns[self.next_turn][1]
                if name == CANDIDATE:
                    self.waiting = True
                    calls = self.prof.calls_per_block
                    seeds = [self.rng.getrandbits(31) for _ in range(calls + 1)]
                    self.block_seeds.append(seeds)
                    return go_line(calls, self.rng.randrange(calls + 1), seeds)
                if name in self.impls:
                    self._time_block(name)
                self._turn_done()
        return self._close()

    def _time_block(self, name: str) -> None:
        for _ in range(self.prof.calls_per_block):
            _, inputs = self.slots.next(name)
            us, out = timed_call(self.impls[name], inputs, self.flush)
            self.times[name].append(us)
            del out

    def _turn_done(self) -> None:
        block = self.turns[self.next_turn][0]
        self.next_turn += 1
        if self.next_turn == len(self.turns) or self.turns[self.next_turn][0] != block:
            self.clocks.append(clock_and_temperature())

    def _close(self) -> bytes:
        self.slots = self.flush = None
        self.impls = {}
        if self.device == "cuda":
            torch.cuda.empty_cache()  # the timing sets' memory back before the next job
        return END

    def timing(self, worker_timing) -> dict | None:
        """The timing entry the verdict is made from (timing.timing_verdict checks it): the
        candidate's samples and probes from its blocks, the baselines' from here, and the
        worker's own count of persisting-L2 raises. None when no timing was done."""
        if not self.ready or self.too_large:
            return None
        raised = worker_timing.get("persisting_l2_raised") \
            if isinstance(worker_timing, dict) else None
        times = {n: t for n, t in self.times.items() if t}
        return {"times_us": times, "probes": self.probes, "clocks": self.clocks,
                "own_launches": self.own_launches, "guarded": self.guarded,
                "aliased": self.aliased,
                "block_seeds": self.block_seeds,
                "gpu": torch.cuda.get_device_name() if self.device == "cuda" else "cpu",
                "persisting_l2_raised": raised, "shape": self.prepared.timed_shape,
                "complete": self.next_turn == len(self.turns)}


def _block_problem(block, calls: int) -> str:
    """What is wrong with a block's structure, '' when sound: one time per timed call, and a
    probe and a launch count for each of them and for the watched call; the watched call's
    record. The values' types are outcome.timing_problem's to check."""
    if not isinstance(block, dict):
        return "that is not an object"
    if not isinstance(block.get("times_us"), list) or len(block["times_us"]) != calls:
        return "without one time per call"
    if not all(isinstance(block.get(k), list) and len(block[k]) == calls + 1
               for k in ("probes", "own_launches")):
        return "without a probe and a launch count for every call"
    guarded = block.get("guarded")
    if not isinstance(guarded, dict) or not isinstance(guarded.get("forbidden_ops"), list) or \
            type(guarded.get("threads_started")) is not int or \
            type(guarded.get("inputs_modified")) is not bool:
        return "without the record of its watched call"
    if type(block.get("aliased")) is not int or not 0 <= block["aliased"] <= calls + 1:
        return "without its count of outputs in an input's memory"
    return ""


def _compile_name(mode: str) -> str:
    return "compile" if mode == "default" else f"compile:{mode}"
