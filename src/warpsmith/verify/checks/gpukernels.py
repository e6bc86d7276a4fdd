"""Which GPU kernels executed during a call, and for how long, from the CUDA profiler (CUPTI
through torch.profiler, recorded in the worker by child/gpukernels.py). Triton's launch hook
(child/launches.py) sees launches that were asked for; this sees kernels that ran, in any
language: a launch with an empty grid or an invalid configuration leaves no trace here (E08),
and a CUDA C++ kernel is seen like a Triton one.

The worker records; the trusted process decides (`problems`), knowing the candidate's kernel
names from its source. Like every in-process record it could be forged by a candidate that
breaks the static rules; the verdict says so (docs/verifier.md).
"""

from __future__ import annotations

import ast
import re

from ... import pyparse

# Not work a candidate can be credited or blamed for: the verifier's own output copies and
# the NaN fill of fresh allocations (the poison), and plain copies/fills.
NEUTRAL = ("Memcpy", "Memset", "FillFunctor")
# Library kernels whose names a candidate could imitate: never the candidate's own.
LIBRARY = ("at::", "c10::", "cublas", "cudnn", "cutlass", "xmma", "nvjet", "cub::")
MIN_OWN_SHARE = 0.5


def kernel_names(source: str) -> set[str]:
    """The kernels a candidate defines: @jit functions and CUDA `__global__` functions."""
    bounds = r"(?:__launch_bounds__\s*\([^)]*\)\s*)?"
    names = set(re.findall(rf"__global__\s+{bounds}void\s+{bounds}(\w+)", source))
    for node in ast.walk(pyparse.parse(source)):
        if isinstance(node, ast.FunctionDef) and any(
                "jit" in ast.unparse(d) for d in node.decorator_list):
            names.add(node.name)
    return names


def is_own(kernel: str, names: set[str]) -> bool:
    if any(lib in kernel for lib in LIBRARY):
        return False
    return any(re.search(rf"(?<![\w:]){re.escape(n)}(?!\w)", kernel) for n in names)


def problems(calls: tuple, names: set[str], expected: int) -> list[tuple[str, str]]:
    """Rule violations over the profiled calls: a call without a record, none of the
    candidate's kernels executed, or they carried less than half of the GPU time. `calls`:
    per call, (kernel name, microseconds) as the worker's report gives them."""
    if len(calls) != expected:
        return [("no-kernel-ran", f"the profiler recorded {len(calls)} calls of {expected}")]
    for i, kernels in enumerate(calls):
        timed = [(k, us) for k, us in kernels if not any(n in k for n in NEUTRAL)]
        own = sum(us for k, us in timed if is_own(k, names))
        total = sum(us for _, us in timed)
        if not any(is_own(k, names) for k, _ in kernels):
            seen = ", ".join(sorted({k[:60] for k, _ in timed})[:4]) or "none"
            return [("no-kernel-ran", f"call {i}: none of the candidate's own kernels executed "
                                      f"on the GPU (kernels seen: {seen})")]
        if total > 0 and own / total < MIN_OWN_SHARE:
            return [("kernel-time-share", f"call {i}: the candidate's kernels carried "
                                          f"{own / total:.0%} of the GPU time; the rest ran in "
                                          "other kernels")]
    return []
