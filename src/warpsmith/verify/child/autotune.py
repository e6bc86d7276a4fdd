"""Which autotune configs the CPU interpreter ran (E51).

Under the interpreter the autotuner takes its configs in turn, one per call (lang/triton.py),
so a kernel with more distinct configs than the run has calls has configs the CPU never ran,
and a GPU's autotuner may pick one of them: a config that leaves half the output unwritten
is often the fastest. Every call of every autotuned kernel is recorded here, by the config it
ran, and each call is steered to a config not yet run; the trusted side makes a CPU verdict
with a config never run `needs_gpu`, never `passed`. Configs that differ only in launch
settings the interpreter ignores (num_warps, num_stages, …) are one config here: only their
meta-parameters and pre-hook change values.
"""

from __future__ import annotations

_SEEN: dict[int, tuple[object, set]] = {}  # id(autotuner) -> (it, the configs it ran)


def install() -> bool:
    from ...lang.triton_compat import autotuner_class

    Autotuner = autotuner_class()  # noqa: N806 - the class, patched below
    if Autotuner is None or not getattr(Autotuner, "_warpsmith_interpreted", False) or \
            getattr(Autotuner, "_warpsmith_recorded", False):
        return False
    original = Autotuner.run

    def run(self, *args, **kwargs):
        entry = _SEEN.setdefault(id(self), (self, set()))
        _next_unrun(self, entry[1])
        out = original(self, *args, **kwargs)
        entry[1].add(_key(self.best_config))
        return out

    Autotuner.run = run
    Autotuner._warpsmith_recorded = True
    return True


def _next_unrun(tuner, ran: set) -> None:
    """Point lang/triton.py's turn (it adds one, then takes that index) at the first config
    not yet run, so configs that differ only in num_warps do not use up the calls: 16 configs
    of 4 block sizes are checked in 4 calls. Once all have run, the turns go on in order."""
    keys = [_key(c) for c in tuner.configs]
    todo = next((i for i, k in enumerate(keys) if k not in ran), None)
    if todo is not None:
        tuner._warpsmith_turn = todo - 1


def _key(config) -> tuple:
    # the pre-hook by identity: two configs alike but for their hooks run different code
    return (tuple(sorted((k, repr(v)) for k, v in config.kwargs.items())),
            id(config.pre_hook) if config.pre_hook is not None else None)


def unrun() -> list[str]:
    """`name: k of n configs never ran` for each autotuned kernel that was called."""
    found = []
    for tuner, ran in _SEEN.values():
        distinct = {_key(c) for c in tuner.configs}
        missing = distinct - ran
        if missing:
            name = getattr(getattr(tuner, "base_fn", None), "__name__", "an autotuned kernel")
            found.append(f"{name}: {len(missing)} of {len(distinct)} configs never ran")
    return found
