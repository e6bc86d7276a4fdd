"""Where a search's three kinds of work run, so that none waits on the others more than it
must, and how long each did wait.

  llm  model calls, up to `llm_slots` at once. A strategy's chains run on threads
       (RunContext.parallel); a chain holds this lane only for its call.
  gpu  verifications, one per executor slot, so at most one timed measurement per GPU (the
       executor's workers keep the GPUs apart; this keeps a search from queueing more work
       on them than they have slots). A chain holds it only while its candidate is verified,
       so the other chains' calls go on meanwhile.
  cpu  a candidate process's start-up (imports, CUDA context, first profiler session) runs in
       a spare started before the verification (verify/isolation/prestart.py), in the process that
       verifies, overlapping the calls and the previous candidate's comparison.

Work that runs a candidate on a GPU outside the executor (the tuner's ranking, the judge's
profiler) takes every gpu slot of its run (`exclusive`) and a GPU the executor lends, where
no other run's verification is timed meanwhile (RunContext.gpu_slot, executors.lend_gpu).

Each lane counts the seconds its slots were busy and the seconds work waited for a slot; a
run's summary reports both (`summary`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

LLM_SLOTS = 8


class Lane:
    def __init__(self, name: str, slots: int):
        self.name, self.slots = name, max(1, slots)
        self._free = threading.Semaphore(self.slots)
        self._several = threading.Lock()  # two takers of several slots would deadlock
        self._lock = threading.Lock()
        self.busy_s = self.wait_s = 0.0
        self.uses = self.in_use = self.peak = 0

    @contextmanager
    def hold(self, count: int = 1) -> Iterator[None]:
        count = min(max(1, count), self.slots)
        asked = time.monotonic()
        if count == 1:
            self._free.acquire()
        else:
            with self._several:
                for _ in range(count):
                    self._free.acquire()
        got = time.monotonic()
        with self._lock:
            self.uses, self.wait_s = self.uses + 1, self.wait_s + got - asked
            self.in_use += count
            self.peak = max(self.peak, self.in_use)
        try:
            yield
        finally:
            with self._lock:
                self.busy_s += count * (time.monotonic() - got)
                self.in_use -= count
            for _ in range(count):
                self._free.release()

    def exclusive(self):
        return self.hold(self.slots)

    def stats(self, wall_s: float) -> dict:
        with self._lock:
            busy = self.busy_s / (self.slots * wall_s) if wall_s > 0 else 0.0
            return {"slots": self.slots, "uses": self.uses, "busy_s": round(self.busy_s, 2),
                    "wait_s": round(self.wait_s, 2), "peak": self.peak,
                    "busy_fraction": round(min(1.0, busy), 3)}


class Scheduler:
    def __init__(self, gpu_slots: int = 1, llm_slots: int = LLM_SLOTS):
        self.llm, self.gpu = Lane("llm", llm_slots), Lane("gpu", gpu_slots)
        self.started = time.monotonic()

    def summary(self) -> dict:
        wall = time.monotonic() - self.started
        return {"wall_s": round(wall, 2), "llm": self.llm.stats(wall),
                "gpu": self.gpu.stats(wall)}


def describe(summary: dict, resumed: bool = False) -> str:
    """One line for a person: how busy the GPU slots were and what waited. A resumed run's
    lanes count this session only (replayed attempts used no slot), so the line says so
    rather than give call counts that disagree with the run's totals beside it."""
    gpu, llm = summary["gpu"], summary["llm"]
    if not gpu["uses"] and not llm["uses"]:
        return ""
    if resumed:
        return "since --resume (replayed attempts not counted): " + describe(summary).replace(
            " of the run ", " of this session ", 1)
    calls = (f"{_count(llm['uses'], 'model call')}, at most {llm['peak']} at once, "
             f"{llm['wait_s']:.0f} s waiting for a slot") if llm["uses"] else "no model calls"
    return (f"verification slots busy {gpu['busy_fraction']:.0%} of the run "
            f"({_count(gpu['slots'], 'slot')}, {_count(gpu['uses'], 'verification')}, "
            f"{gpu['wait_s']:.0f} s waiting for a slot); {calls}")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"
