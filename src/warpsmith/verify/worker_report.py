"""The worker's last frame, parsed once into a frozen record (issue 31 item 8).

Everything in it is the candidate's process speaking, and that process may be the
candidate's: each field is a claim that can only fail a candidate (a rule it broke, an error
it raised) or stand as a diagnostic (stage times, peak memory). Correctness comes from the
outputs the trusted side read itself (collect.py), time from its own clock (baselines.py).
A report that is not well formed is a reason (`parse_report` returns a str), never an
exception on the trusted side: the candidate cannot pick a softer failure by forging one."""

from __future__ import annotations

import math
from dataclasses import dataclass

# what the worker appends per checked call; the indices of the calls that broke a rule; the
# lists it appends to only on a GPU or only when something happened
PER_CALL = ("kernels", "threads_started", "forbidden_ops")
INDICES = ("inputs_modified", "aliased", "bad_outputs", "poison_off")
LISTS = PER_CALL + INDICES + ("gpu_kernels", "tampered")


@dataclass(frozen=True)
class WorkerError:
    """An exception the candidate's process says it raised."""
    type: str
    message: str
    traceback: str


@dataclass(frozen=True)
class WorkerReport:
    stage: str  # where the worker was when it reported: "done" after the last stage
    error: WorkerError | None = None
    stage_seconds: tuple[tuple[str, float], ...] = ()
    dynamic_code: tuple[str, ...] = ()  # sources compiled from strings while it ran
    kernels: tuple[tuple[tuple[str, bool], ...], ...] = ()  # per call: (name, own) launched
    threads_started: tuple[int, ...] = ()  # per call: threads it started
    forbidden_ops: tuple[tuple[str, ...], ...] = ()  # per call
    gpu_kernels: tuple[tuple[tuple[str, float], ...], ...] = ()  # per call: (name, us)
    inputs_modified: tuple[int, ...] = ()  # the indices of the calls that did it
    aliased: tuple[int, ...] = ()
    bad_outputs: tuple[int, ...] = ()
    poison_off: tuple[int, ...] = ()
    tampered: tuple[str, ...] = ()  # names of the harness's functions it replaced
    built: int = 0  # models built before it reported
    launched: int = 0  # own kernels' launches outside the calls' records (E103)
    peak_bytes: int | None = None  # its own GPU peak (a diagnostic)
    autotune_unrun: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()  # the interpreter's refusals of a kernel's access (bounds.py)
    l2_raised: int | None = None  # persisting-L2 raises while timed; None: not reported


def parse_report(raw: dict | None, cases: int) -> WorkerReport | str:
    """The report of a worker that ran `cases` checked calls, or why it is not one. An
    error report is parsed without its per-call lists (they stop where it raised)."""
    if not isinstance(raw, dict):
        return "no report"
    if not isinstance(raw.get("stage"), str):
        return "no stage"
    times = raw.get("stage_seconds", {})
    if not _times_ok(times):
        return "stage_seconds is not an object of times"
    code = raw.get("dynamic_code", [])
    if not isinstance(code, list) or not all(isinstance(c, str) for c in code):
        return "dynamic_code is not a list of sources"
    head = dict(stage=raw["stage"], stage_seconds=tuple(times.items()),
                dynamic_code=tuple(code), built=_count(raw.get("built")) or 0,
                launched=_count(raw.get("launched")) or 0,
                peak_bytes=_count(raw.get("peak_bytes")),
                autotune_unrun=_strings(raw.get("autotune_unrun")),
                refused=_strings(raw.get("refused")),
                l2_raised=_count((raw.get("timing") or {}).get("persisting_l2_raised")
                                 if isinstance(raw.get("timing"), dict) else None))
    if raw.get("error") is not None:
        error = raw["error"]
        if not isinstance(error, dict) or not all(
                isinstance(error.get(k), str) for k in ("type", "message", "traceback")):
            return "error entry is not well formed"
        return WorkerReport(error=WorkerError(error["type"], error["message"],
                                              error["traceback"]), **head)
    calls = _calls(raw, cases)
    return calls if isinstance(calls, str) else WorkerReport(**head, **calls)


def _calls(raw: dict, cases: int) -> dict | str:
    """The per-call lists of a report without an error, or what is wrong with them."""
    for key in LISTS:
        if not isinstance(raw.get(key), list):
            return f"{key} is missing"
    for key in PER_CALL:
        if len(raw[key]) != cases:
            return f"{key} has {len(raw[key])} entries for {cases} calls"
    if not all(isinstance(call, list) and all(_pair(k, object) for k in call)
               for call in raw["kernels"]):
        return "kernels entries are not [name, own] pairs"
    if not all(isinstance(ops, list) and all(isinstance(o, str) for o in ops)
               for ops in raw["forbidden_ops"]):
        return "forbidden_ops entries are not lists of names"
    if not all(isinstance(call, list) and all(_pair(k, float) for k in call)
               for call in raw["gpu_kernels"]):
        return "gpu_kernels entries are not [name, microseconds] pairs"
    for key in ("threads_started", *INDICES):
        if not all(_count(n) is not None for n in raw[key]):
            return f"{key} entries are not counts"
    return dict(kernels=tuple(tuple((k[0], bool(k[1])) for k in call)
                              for call in raw["kernels"]),
                threads_started=tuple(raw["threads_started"]),
                forbidden_ops=tuple(tuple(ops) for ops in raw["forbidden_ops"]),
                gpu_kernels=tuple(tuple((k[0], float(k[1])) for k in call)
                                  for call in raw["gpu_kernels"]),
                **{key: tuple(raw[key]) for key in INDICES},
                tampered=tuple(str(t)[:200] for t in raw["tampered"][:64]))


def _pair(entry, second: type) -> bool:
    """[name, value]: a launch's (second: anything, read as a flag) or a timed kernel's
    (second: a non-negative number of microseconds)."""
    if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
        return False
    return second is object or number(entry[1]) and entry[1] >= 0


def _times_ok(times) -> bool:
    return isinstance(times, dict) and len(times) <= 16 and all(
        isinstance(k, str) and len(k) <= 64 and number(v) and 0 <= v < 1e7
        for k, v in times.items())


def _strings(value) -> tuple[str, ...]:
    """A list of short texts (a diagnostic): anything else reads as none."""
    if not isinstance(value, list):
        return ()
    return tuple(str(v)[:200] for v in value[:16])


def _count(value) -> int | None:
    return value if type(value) is int and 0 <= value < 2**62 else None


def number(value) -> bool:
    """A number from the candidate's JSON: an int or a float, never a bool, and an int only
    within 64 bits (one of 400 digits made float() raise OverflowError out of the trusted
    side and out of the tuner's search: red-team round 14, E108)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, float) or -2**63 <= value < 2**63


def finite(value) -> bool:
    """A number (as above) that is neither infinite nor NaN."""
    return number(value) and math.isfinite(value)
