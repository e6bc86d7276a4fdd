"""Triton candidates under the interpreter (TRITON_INTERPRET=1, the CPU path).

`@triton.autotune(configs=[...], key=[...])`, as LLMs write it, times every config with the
GPU driver's benchmarker the first time a key is seen; with no GPU driver that raises "0 active
drivers" and an honest kernel got `runtime_error`. Under the interpreter a timing would mean
nothing anyway, so the autotuner times nothing and takes the configs in turn, one per call
(after any pruning the kernel asks for): the CPU's several checked calls check every config's
values. A GPU's autotuner keeps the fastest, and a config that writes only part of the output
is often the fastest one, so checking only the first (as this did before) passed a kernel whose
other configs left half the output unwritten. Nothing changes where the interpreter is off.

The candidate's process gets this because verify/child/ imports this package (whose import
installs it) before any candidate is imported.
"""

from __future__ import annotations

PICKED, PASSED_OVER = [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]  # min() keeps the one picked


def install_interpreter_autotune() -> bool:
    """Make Autotuner take its configs in turn under the interpreter; True when installed
    now."""
    from .triton_compat import autotuner_class, interpreting

    Autotuner = autotuner_class()  # noqa: N806 - the class, patched below
    if Autotuner is None or not interpreting() or \
            getattr(Autotuner, "_warpsmith_interpreted", False):
        return False
    original = Autotuner.run

    def run(self, *args, **kwargs):
        self.cache.clear()  # every call chooses again: the next config's turn
        self.cache_results = False  # nor from a cache on disk
        self._warpsmith_turn = getattr(self, "_warpsmith_turn", -1) + 1
        self._warpsmith_seen = 0
        return original(self, *args, **kwargs)

    Autotuner.run = run
    Autotuner.do_bench = property(_untimed)
    Autotuner._warpsmith_interpreted = True
    return True


def _untimed(tuner):
    """The benchmarker's signature (fn, quantiles) -> [median, low, high], running nothing:
    called once per (pruned) config in order, it marks the config whose turn it is. The count
    of pruned configs is known only once they are all seen, so the turn cycles over all the
    configs and a pruned-away one's turn falls to the first."""
    def bench(kernel_call, quantiles=None):
        index = tuner._warpsmith_seen
        tuner._warpsmith_seen += 1
        return list(PICKED if index == tuner._warpsmith_turn % len(tuner.configs)
                    else PASSED_OVER)
    return bench
