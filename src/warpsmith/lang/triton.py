"""Triton candidates under the interpreter (TRITON_INTERPRET=1, the CPU path).

`@triton.autotune(configs=[...], key=[...])`, as LLMs write it, times every config with the
GPU driver's benchmarker the first time a key is seen; with no GPU driver that raises "0 active
drivers" and an honest kernel got `runtime_error`. Under the interpreter a timing would mean
nothing anyway, so the autotuner takes the first config (after any pruning the kernel asks
for) without timing: the CPU checks that config's values; a GPU tries every config as the
kernel asks. Nothing changes where the interpreter is off.

The candidate's process gets this because verify/child/ imports this package (whose import
installs it) before any candidate is imported.
"""

from __future__ import annotations

FIRST_CONFIG = [0.0, 0.0, 0.0]  # every config "takes" the same time: min() keeps the first


def install_interpreter_autotune() -> bool:
    """Make Autotuner pick its first config under the interpreter; True when installed now."""
    try:
        from triton import knobs
        from triton.runtime.autotuner import Autotuner
    except ImportError:  # no triton, or one without knobs (older than 3.4)
        return False
    if not knobs.runtime.interpret or getattr(Autotuner, "_warpsmith_interpreted", False):
        return False
    Autotuner.do_bench = property(lambda self: _untimed)
    Autotuner._warpsmith_interpreted = True
    return True


def _untimed(kernel_call, quantiles=None):
    """The benchmarker's signature (fn, quantiles) -> [median, low, high], running nothing."""
    return list(FIRST_CONFIG)
