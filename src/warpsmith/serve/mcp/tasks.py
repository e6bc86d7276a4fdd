"""The task tools: list a suite, show one task."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from .common import Task, result

# tasks.gpus.DEFAULT_GPU, written out: importing warpsmith.tasks loads torch, and the default
# is part of the tool's schema, sent before any tool runs (a test keeps the two equal)
DEFAULT_GPU = "H200"


def list_tasks(suite: Annotated[str, Field(description=(
        "'builtin', 'builtin/level1', or the absolute path of a folder of task files."))]
        = "builtin") -> CallToolResult:
    """List the tasks of a suite: name, dtype, input shapes and a one-line description. Call it
    to find a task name for the other tools."""
    from ...tasks import load_suite
    from ...tasks.describe import task_summary

    tasks, errors = load_suite(suite)
    lines = [f"{len(tasks)} tasks in {suite}:"]
    lines += [f"- {t.name} ({t.dtype}; shapes {', '.join(s.name for s in t.shapes)}): "
              f"{t.description}" for t in tasks]
    lines += [f"not loaded: {e}" for e in errors]
    return result("\n".join(lines), {"suite": suite, "tasks": [task_summary(t) for t in tasks],
                                     "errors": [str(e) for e in errors]})


def show_task(task: Task,
              gpu: Annotated[str, Field(description="GPU for the roofline floor, e.g. H100.")]
              = DEFAULT_GPU,
              include_source: bool = True) -> CallToolResult:
    """Show a task: its PyTorch reference source (the `Model` your `ModelNew` must match), its
    input shapes, FLOPs and bytes per call, and the roofline floor (the least time any kernel can
    take on the GPU). Read it before writing a candidate."""
    from ...tasks import resolve_task
    from ...tasks.describe import task_details

    loaded = resolve_task(task)
    details = task_details(loaded, gpu)
    lines = [f"{loaded.name}: {loaded.description}",
             f"dtype {loaded.dtype}{' (TF32 allowed)' if loaded.allow_tf32 else ''}; "
             f"file {loaded.path}"]
    if loaded.allowed_torch:
        lines.append(f"torch ops a candidate may still call: {', '.join(loaded.allowed_torch)}")
    lines += [_shape_line(s, details["gpu"]) for s in details["shapes"]]
    if include_source:
        lines.append(f"\nreference source:\n```python\n{loaded.source.rstrip()}\n```")
    return result("\n".join(lines), details | {"source": loaded.source})


def _shape_line(s: dict, gpu: str) -> str:
    floor = (f"floor on {gpu} {s['floor_us']:.3g} µs ({s['floor_bound']}-bound)"
             if s["floor_us"] is not None
             else f"no floor (uncounted ops: {', '.join(s['uncounted_ops'])})")
    return (f"shape {s['name']}: inputs {'; '.join(s['inputs'])}; {s['flops'] / 1e9:.4g} GFLOP, "
            f"{s['bytes'] / 1e6:.4g} MB moved; {floor}")
