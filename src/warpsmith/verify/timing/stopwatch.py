"""How one call is timed, the same on both sides: the candidate's worker times its own blocks
(child/timing.py), the trusted process times eager and torch.compile between them
(baselines.py). Each call: L2 flushed, inputs from one of two rotating buffers (Slots), CUDA
events around the call with a device-wide synchronize before the end event (work on side
streams counts). On the CPU (tests of the protocol) a monotonic clock stands in for the
events. Imports nothing of warpsmith's: the candidate's side loads it too.
"""

from __future__ import annotations

import random
import time

import torch

L2_FLUSH_BYTES = 256 << 20  # several times any current L2 (H200: 60 MB)


class Slots:
    """Two input buffers refilled before every call from an odd number of input sets, so the
    same address never holds the same values twice running: a result cached by pointer is
    replayed against other inputs, and the probes catch it (E18). Each implementation gets
    every set once per round, in an order drawn at random (never the set the buffer held
    last): in a fixed rotation a kernel that counts its timed calls knows which set it was
    given and replays its answer to that set without reading the inputs (E18 by call order).
    Rotation alone does not stop a kernel that reads a few input values to tell the sets
    apart: that needs a fresh set for every timed call (docs/verifier.md)."""

    def __init__(self, pool: list):
        first = pool[0][1]
        self.buffers = [[_clone(x) for x in first] for _ in range(2)]
        self.calls: dict[str, int] = {}
        self.rng = random.SystemRandom()
        self.refill(pool)

    def refill(self, pool: list) -> None:
        """New sets (a timing block's, made from fresh seeds) in the same buffers."""
        self.pool = pool if len(pool) % 2 else pool[:-1] or pool
        self.held = [-1, -1]  # which set each buffer holds
        self.rounds: dict[str, list[int]] = {}  # per implementation: sets left this round

    def next(self, name: str) -> tuple[int, list]:
        n = self.calls.get(name, 0)
        self.calls[name] = n + 1
        slot = n % 2
        self.held[slot] = self._draw(name, slot)
        case, source = self.pool[self.held[slot]]
        buffer = self.buffers[slot]
        for dst, src in zip(buffer, source, strict=True):
            if isinstance(dst, torch.Tensor):
                dst.copy_(src)
        return case, [b if isinstance(b, torch.Tensor) else s
                     for b, s in zip(buffer, source, strict=True)]

    def _draw(self, name: str, slot: int) -> int:
        rest = self.rounds.get(name) or list(range(len(self.pool)))
        fresh = [i for i in range(len(self.pool)) if i != self.held[slot]] or [0]
        pick = self.rng.choice([i for i in rest if i in fresh] or fresh)
        self.rounds[name] = [i for i in rest if i != pick]
        return pick


def _clone(x):
    return x.clone() if isinstance(x, torch.Tensor) else x


def flush_buffer(device: str) -> torch.Tensor:
    return torch.empty(L2_FLUSH_BYTES if device == "cuda" else 1 << 20, dtype=torch.uint8,
                       device=device)


def warm_up(fn, pool: list, seconds: float) -> None:
    start, calls = time.perf_counter(), 0
    while calls < 3 or time.perf_counter() - start < seconds:
        fn(*pool[calls % len(pool)][1])
        synchronize(pool[0][1])
        calls += 1


def per_call_seconds(fn, pool: list) -> float:
    """fn's seconds per call over at least 3 calls and 10 ms, synchronized after each."""
    start, calls = time.perf_counter(), 0
    while calls < 3 or time.perf_counter() - start < 0.01:
        fn(*pool[calls % len(pool)][1])
        synchronize(pool[0][1])
        calls += 1
    return (time.perf_counter() - start) / calls


def timed_call(fn, inputs, flush: torch.Tensor) -> tuple[float, object]:
    """(microseconds, outputs) of one call."""
    flush.zero_()
    if flush.device.type != "cuda":
        start = time.perf_counter_ns()
        out = fn(*inputs)
        return (time.perf_counter_ns() - start) / 1000.0, out
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    out = fn(*inputs)
    torch.cuda.synchronize()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000.0, out


def synchronize(inputs) -> None:
    if any(isinstance(x, torch.Tensor) and x.is_cuda for x in inputs):
        torch.cuda.synchronize()


def clock_and_temperature() -> dict:
    reading = {}
    for key, fn in (("sm_clock_mhz", torch.cuda.clock_rate),
                    ("temperature_c", torch.cuda.temperature)):
        try:
            reading[key] = fn() if torch.cuda.is_available() else None
        except Exception:  # NVML missing or refused: recorded as absent, not guessed
            reading[key] = None
    return reading
