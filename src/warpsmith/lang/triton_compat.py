"""Every use warpsmith makes of Triton's internals, in one place: the classes whose `run`
launches a kernel (verify/child/launches.py records which ran), the autotuner whose configs the
interpreter takes in turn (lang/triton.py, verify/child/autotune.py), and whether the
interpreter is on. Public Triton (triton.jit, triton.language, triton.testing) is used
directly elsewhere; what is here changes between releases, so a new release is one file to read.

Tested with Triton 3.6 (the dev extra's pin, torch 2.13 CPU; and on the GPU machine, torch 2.11)
and 3.9 (the interpreter tests under torch 2.13 CPU). Between them: `Autotuner.run` skips
benchmarking when pruning leaves one config (3.9), which leaves that config in use as before;
`JITFunction.run`, `InterpretedFunction.run(*args, grid, warmup, **kwargs)`, `Autotuner.configs`,
`.cache`, `.cache_results`, `.best_config`, the `do_bench` property and `knobs.runtime.interpret`
are the same. Below 3.4 (no `triton.knobs`) the interpreter's flag is read from the environment.
"""

from __future__ import annotations

import os

OLDEST, NEWEST = (3, 6), (3, 9)  # the range tested; pyproject.toml's bound follows it


def version() -> tuple[int, int] | None:
    """Triton's (major, minor), None without Triton."""
    try:
        import triton
    except ImportError:
        return None
    major, minor = triton.__version__.split(".")[:2]
    return int(major), int(minor)


def interpreting() -> bool:
    """Whether kernels run in Triton's CPU interpreter (TRITON_INTERPRET=1)."""
    try:
        from triton import knobs
    except ImportError:  # Triton < 3.4 reads the variable itself
        return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on", "yes")
    return bool(knobs.runtime.interpret)


def launching_classes() -> list[type]:
    """The classes whose `run(*args, grid, warmup, **kwargs)` launches a kernel: the compiled
    path's JITFunction and, where Triton ships it, the interpreter's InterpretedFunction."""
    from triton.runtime.jit import JITFunction

    classes = [JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction
        classes.append(InterpretedFunction)
    except ImportError:  # interpreter not shipped in this triton
        pass
    return classes


def python_function(kernel):
    """The Python function a launched kernel object was made from (its name and file say
    whose kernel ran): `.fn` on both launching classes."""
    return getattr(kernel, "fn", kernel)


def autotuner_class() -> type | None:
    """triton.runtime.autotuner.Autotuner, None without Triton."""
    try:
        from triton.runtime.autotuner import Autotuner
    except ImportError:
        return None
    return Autotuner
