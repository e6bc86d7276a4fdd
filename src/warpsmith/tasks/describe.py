"""A task as plain data: what `tasks show` prints and `--json` returns."""

from __future__ import annotations

from ..types import Task
from .counting import count_cost
from .gpus import DEFAULT_GPU, roofline_floor
from .loader import make_inputs


def task_summary(task: Task) -> dict:
    return {
        "name": task.name,  # as the store keys it: NAME@DIGEST outside the built-in suite
        "title": task.title,
        "level": task.level,
        "description": task.description,
        "dtype": task.dtype,
        "shapes": [s.name for s in task.shapes],
        "path": str(task.path),
    }


def task_details(task: Task, gpu: str = DEFAULT_GPU) -> dict:
    details = task_summary(task) | {
        "allow_tf32": task.allow_tf32,
        "tolerance": task.tolerance,
        "allowed_torch": list(task.allowed_torch),
        "gpu": gpu.upper(),
        "shapes": [shape_details(task, s.name, gpu) for s in task.shapes],
    }
    return details


def shape_details(task: Task, shape: str, gpu: str) -> dict:
    inputs = make_inputs(task, shape, device="meta")  # no Model: one may not build on meta
    cost = count_cost(task, shape)
    floor = roofline_floor(cost, task, gpu)
    return {
        "name": shape,
        "constants": task.shape(shape).values,
        "inputs": [_describe_input(x) for x in inputs],
        "flops": cost.flops,
        "matmul_flops": cost.matmul_flops,
        "bytes": cost.bytes,
        "uncounted_ops": list(cost.uncounted_ops),
        "floor_us": floor.seconds * 1e6 if floor else None,
        "floor_bound": floor.bound if floor else None,
    }


def _describe_input(x) -> str:
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        dims = "×".join(str(d) for d in x.shape) or "scalar"
        return f"{dims} {str(x.dtype).removeprefix('torch.')}"
    return repr(x)
