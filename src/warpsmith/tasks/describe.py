"""A task as plain data: what `tasks show` prints and `--json` returns."""

from __future__ import annotations

from ..types import Task
from .counting import count_cost
from .gpus import DEFAULT_GPU, roofline_floor
from .loader import build, cast_dtype, conversions, import_task_module, make_inputs

AS_WRITTEN = "as written"  # each tensor in the dtype its file gives it


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
        "precision": precision(task),
        "conversions": conversions(task, task.shapes[0].name),
    }
    return details


def precision(task: Task) -> str:
    """'as written', or 'cast to DTYPE' where the file's DTYPE casts every floating tensor."""
    if cast_dtype(import_task_module(task.path)) is None:
        return AS_WRITTEN
    return f"cast to {task.dtype}"


def shape_details(task: Task, shape: str, gpu: str) -> dict:
    inputs = make_inputs(task, shape, device="meta")  # no Model: one may not build on meta
    cost = count_cost(task, shape)
    floor = roofline_floor(cost, task, gpu)
    return {
        "name": shape,
        "constants": task.shape(shape).values,
        "inputs": [_describe_input(x) for x in inputs],
        "held": _held(task, shape),
        "flops": cost.flops,
        "matmul_flops": cost.matmul_flops,
        "bytes": cost.bytes,
        "uncounted_ops": list(cost.uncounted_ops),
        "floor_us": floor.seconds * 1e6 if floor else None,
        "floor_bound": floor.bound if floor else None,
    }


def _held(task: Task, shape: str) -> list[str]:
    """The parameters' and buffers' dtypes as they will run, one entry a dtype with its
    count; empty where the constructor cannot run on meta."""
    try:
        model = build(task, shape, device="meta").model
    except Exception:  # the task's own code, run on meta tensors
        return []
    tensors = list(model.parameters()) + list(model.buffers())
    counts: dict[str, int] = {}
    for t in tensors:
        name = str(t.dtype).removeprefix("torch.")
        counts[name] = counts.get(name, 0) + t.numel()
    return [f"{n} {dtype}" for dtype, n in counts.items()]


def _describe_input(x) -> str:
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        dims = "×".join(str(d) for d in x.shape) or "scalar"
        return f"{dims} {str(x.dtype).removeprefix('torch.')}"
    return repr(x)
