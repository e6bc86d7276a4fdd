"""The Verdict's timing fields from the samples the candidate's process measured
(child/timing.py), read on the trusted side once outcome.timing_problem has checked them."""

from __future__ import annotations

import statistics

from ..types import Floor, Timing


def summarise(name: str, samples: list[float]) -> Timing:
    q = statistics.quantiles(samples, n=4) if len(samples) > 1 else [samples[0]] * 3
    return Timing(name, statistics.median(samples), min(samples), max(samples),
                  q[2] - q[0], len(samples))


def timing_fields(timing: dict, floor: Floor | None, peak: Floor | None) -> dict:
    """The Verdict's timing fields from the worker's raw samples."""
    timings = {n: summarise(n, s) for n, s in timing["times_us"].items()}
    cand = timings["candidate"].median_us
    compiled = [t.median_us for n, t in timings.items() if n.startswith("compile")]
    floor_us = floor.seconds * 1e6 if floor else None
    return {
        "timing_measured": True,
        "timings": tuple(timings.values()),
        "timed_shape": timing["shape"],
        "speedup_vs_eager": timings["eager"].median_us / cand,
        "speedup_vs_compile": min(compiled) / cand if compiled else None,
        "floor_us": floor_us,
        "peak_floor_us": peak.seconds * 1e6 if peak else None,
        "roofline_fraction": floor_us / cand if floor_us else None,
    }
