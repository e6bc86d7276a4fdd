"""Tasks: loading KernelBench-format files, suites, shapes, FLOP and byte counts, floors."""

from .counting import count_cost
from .gpus import GPUS, gpu_spec, roofline_floor
from .loader import build, load_task
from .suite import BUILTIN, load_suite, resolve_task

__all__ = ["BUILTIN", "GPUS", "build", "count_cost", "gpu_spec", "load_suite", "load_task",
           "resolve_task", "roofline_floor"]
