"""The find_kernels tool: verified kernels from the store, only those whose source it can give.

A passed verdict names a candidate file, which may be gone (the reward service verifies from
temporary files), relative to a directory nobody recorded, or rewritten since. A kernel is
returned only with a source known to be the one verified: a search attempt's stored text, or a
file whose text, keyed the verifier's way, gives the verdict's cache key. Each comes with a
stable absolute path: a copy in the MCP candidates folder named by its content.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from ... import config
from ...types import Task as LoadedTask
from ...types import Verdict
from .common import Task, candidates_folder, keep_source, result, slug
from .search import speed


@dataclass(frozen=True)
class Kernel:
    verdict: Verdict
    source: str
    origin: str
    path: Path


def find_kernels(task: Task,
                 limit: Annotated[int, Field(ge=1, le=50, description=(
                     "How many kernels to return."))] = 5,
                 include_source: bool = True) -> CallToolResult:
    """Kernels already verified (status passed) for a task, from warpsmith's store: those checked
    with verify_kernel or the CLI and those found by optimize runs, most recently verified
    first, each with its speedup (when timed), its source and a stable absolute path to a copy
    of it. Only kernels whose verified source is still known are returned. Call it before
    writing a kernel from scratch."""
    from ...tasks import resolve_task

    loaded = resolve_task(task)
    found, unknown = available(loaded)
    shown = found[:limit]
    gone = (f" ({unknown} more verified whose source is not known here: a file gone, edited "
            "since, or named relative to another folder; left out)") if unknown else ""
    data = {"task": loaded.name, "kernels": [_kernel_data(k, include_source) for k in shown],
            "without_source": unknown}
    if not shown:
        return result(f"no verified kernel with a known source for {loaded.name} in the "
                      f"store yet{gone}", data)
    lines = [f"{len(shown)} of {len(found)} verified kernel(s) for {loaded.name}, newest "
             f"first{gone}:"]
    for i, k in enumerate(shown, 1):
        lines.append(f"#{i} {speed(k.verdict)}; {k.origin}; at {k.path}")
        if include_source:
            lines.append(f"```python\n{k.source.rstrip()}\n```")
    return result("\n".join(lines), data)


def available(task: LoadedTask) -> tuple[list[Kernel], int]:
    """The task's passed verdicts with a known source, newest first, and how many had none."""
    verdicts = _passed(task.name)
    attempts = _attempt_sources(task.name)
    files = _file_sources(task, verdicts)
    kernels, unknown = [], 0
    for v in verdicts:
        known = attempts.get(v.cache_key) or files.get(v.cache_key)
        if known is None:
            unknown += 1
            continue
        kernels.append(Kernel(v, known[0], known[1], keep_source(task.name, known[0])))
    return kernels, unknown


def _passed(task_name: str) -> list[Verdict]:
    from ...store import VerdictStore

    store = VerdictStore(config.db_path())
    try:
        return store.passed(task_name, newest_first=True)
    finally:
        store.close()


def _attempt_sources(task_name: str) -> dict[str, tuple[str, str]]:
    """cache key -> (source, where it came from), for the task's passed search attempts."""
    from ...store.runs import RunStore

    runs = RunStore(config.db_path())  # also creates the runs tables in a fresh store
    try:
        rows = runs.passed_sources(task_name)
    finally:
        runs.close()
    found = {}
    for run_id, number, source, key in rows:  # the attempt as `runs show` numbers it
        found.setdefault(key, (source, f"optimize run {run_id}, attempt #{number}"))
    return found


def _file_sources(task: LoadedTask, verdicts: list[Verdict]) -> dict[str, tuple[str, str]]:
    """cache key -> (source, origin) for the files a verdict may have been made from: the
    absolute paths the verdicts name, and the MCP's own copies for this task."""
    paths = {Path(v.candidate) for v in verdicts if Path(v.candidate).is_absolute()}
    paths |= set(candidates_folder().glob(f"{slug(task.name)}-*.py"))
    settings = {(v.device, json.dumps(_keyed_environment(v), sort_keys=True)) for v in verdicts}
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(paths):
        source = _read(path)
        if source is not None:
            for key in _keys(task, source, settings):
                found.setdefault(key, (source, f"file {path}"))
    return found


def _keys(task: LoadedTask, source: str, settings: set[tuple[str, str]]) -> list[str]:
    """The keys the verifier would give this source under each device and environment seen,
    and each profile (a verdict does not record which one made it)."""
    from ...config import PROFILES
    from ...verify.pipeline import cache_key

    return [cache_key(task, source, device, profile, json.loads(env))
            for device, env in settings for profile in PROFILES.values()]


def _keyed_environment(v: Verdict) -> dict:
    return {k: value for k, value in v.environment.items() if k != "clocks"}  # added after


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return None  # moved, deleted or not text: such a verdict has no source to give


def _kernel_data(k: Kernel, include_source: bool) -> dict:
    v = k.verdict
    return {"origin": k.origin, "path": str(k.path),
            "source": k.source if include_source else None,
            "device": v.device, "speedup_vs_eager": v.speedup_vs_eager,
            "speedup_vs_compile": v.speedup_vs_compile,
            "roofline_fraction": v.roofline_fraction, "timing_measured": v.timing_measured,
            "cache_key": v.cache_key}
