"""GPU timing: candidate, eager and torch.compile interleaved in blocks, in one process.

Each call: L2 flushed, inputs from fresh sets no checked call used (in rotating buffers),
CUDA events around the call with a device-wide synchronize before the end event (work on side
streams counts). Outputs of timed calls are probed at secret positions so a kernel that
changes behaviour once it is timed is caught. Runs in the candidate's process; its numbers
are measurements, not verdicts (the trusted side reads them: verify/timing.py).
"""

from __future__ import annotations

import random
import time

import torch
from torch.utils._pytree import tree_leaves

from .. import cudadriver
from . import integrity

L2_FLUSH_BYTES = 256 << 20  # several times any current L2 (H200: 60 MB)


def time_candidate(job: dict, models: dict, data: dict, module_task: str) -> dict:
    from ...config import profile
    from ...tasks.loader import build, load_task, tf32_policy

    prof = profile(job["profile"])
    task = load_task(module_task)
    shape = job["timed_shape"]
    cases = data["cases"]
    # Timed calls see only inputs the candidate was never checked on (reference.py adds them
    # on a GPU; the checked calls' inputs were freed after each call).
    pool = [(i, c["inputs"]) for i, c in enumerate(cases) if c["variant"] == "timing"]
    eager = build(task, shape, device="cuda").model
    eager.load_state_dict(data["shapes"][shape]["state_dict"])
    impls = {"candidate": models[shape], "eager": eager}
    for mode in prof.compile_modes:
        name = "compile" if mode == "default" else f"compile:{mode}"
        impls[name] = torch.compile(eager, mode=None if mode == "default" else mode)
    probes = {int(k): v for k, v in job["probes"].items()}
    with torch.no_grad(), tf32_policy(task):
        for fn in impls.values():
            _warm_up(fn, pool, prof.warmup_s)
        return _measure(impls, pool, probes, prof) | {"shape": shape}


def _measure(impls: dict, pool: list, probes: dict, prof) -> dict:
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    slots = _Slots(pool)
    times = {name: [] for name in impls}
    probe_log, clocks, raised, tampered = [], [], 0, set()
    for block in range(prof.blocks):
        cudadriver.reset_persisting_l2()
        order = list(impls)
        random.Random(block).shuffle(order)
        for name in order:
            for _ in range(prof.calls_per_block):
                case, inputs = slots.next(name)
                raised += _guard_persisting_l2()
                state = integrity.knobs()
                us, out = _timed_call(impls[name], inputs, flush)
                times[name].append(us)
                if name == "candidate":
                    probe_log.append(_probe(out, case, probes))
                    tampered.update(integrity.knobs_changed(state))  # read by the baselines
                else:
                    _spoil(out)  # so the candidate's next allocation cannot inherit it (E07)
        clocks.append(_clock_and_temperature())
    raised += _guard_persisting_l2()
    return {"times_us": times, "probes": probe_log, "clocks": clocks,
            "gpu": torch.cuda.get_device_name(), "persisting_l2_raised": raised,
            "tampered": sorted(tampered)}


def _guard_persisting_l2() -> int:
    """1 when the persisting-L2 limit is no longer 0 (someone raised it since the block's
    reset: only the candidate's code runs in between), after putting it back to 0 (E31)."""
    if cudadriver.persisting_l2_limit() == 0:
        return 0
    cudadriver.reset_persisting_l2()
    return 1


class _Slots:
    """Two input buffers refilled before every call from an odd number of input sets, so the
    same address never holds the same values twice running: a result cached by pointer is
    replayed against other inputs, and the probes catch it (E18). Each implementation gets
    every set once per round, in an order drawn at random (never the set the buffer held
    last): in a fixed rotation a kernel that counts its timed calls knows which set it was
    given and replays its answer to that set without reading the inputs (E18 by call order).
    Rotation alone does not stop a kernel that reads a few input values to tell the sets
    apart: that needs a fresh set for every timed call (docs/verifier.md)."""

    def __init__(self, pool: list):
        self.pool = pool if len(pool) % 2 else pool[:-1] or pool
        first = pool[0][1]
        self.buffers = [[_clone(x) for x in first] for _ in range(2)]
        self.calls: dict[str, int] = {}
        self.held = [-1, -1]  # which set each buffer holds
        self.rounds: dict[str, list[int]] = {}  # per implementation: sets left this round
        self.rng = random.SystemRandom()

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


def _warm_up(fn, pool, seconds: float) -> None:
    start, calls = time.perf_counter(), 0
    while calls < 3 or time.perf_counter() - start < seconds:
        fn(*pool[calls % len(pool)][1])
        torch.cuda.synchronize()
        calls += 1


def _timed_call(fn, inputs, flush: torch.Tensor) -> tuple[float, object]:
    flush.zero_()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    out = fn(*inputs)
    torch.cuda.synchronize()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000.0, out


def _spoil(out) -> None:
    for t in tree_leaves(out):
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            t.fill_(float("nan"))


def _probe(out, case: int, probes: dict) -> dict:
    first = next(t for t in tree_leaves(out) if isinstance(t, torch.Tensor))
    idx = torch.tensor(probes[case], device=first.device) % max(1, first.numel())
    return {"case": case, "values": first.reshape(-1)[idx].double().cpu().tolist()}


def _clock_and_temperature() -> dict:
    reading = {}
    for key, fn in (("sm_clock_mhz", torch.cuda.clock_rate),
                    ("temperature_c", torch.cuda.temperature)):
        try:
            reading[key] = fn()
        except Exception:  # NVML missing or refused: recorded as absent, not guessed
            reading[key] = None
    return reading
