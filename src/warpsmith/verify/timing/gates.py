"""Plausibility gates on timed verdicts: flags, never rejections (issue 31). The time is the
trusted side's clock over calls whose outputs it checked, so a fast result is a fast kernel
or a kernel that does less work honestly (one that exploits the structure of the task's
inputs: a triangular operand, zeros, KernelBench level1/14 and 15). A result far faster than
the baselines is measured again in a fresh worker (`pipeline._run`), the slower of the two
is reported, and the verdict says so; a time below the dense op's datasheet floor is said."""

from __future__ import annotations

from dataclasses import replace

from ...types import Verdict

MAX_SPEEDUP_VS_EAGER = 10.0
# torch.compile is near the floor on simple ops (shared/MEASURED.md: the largest headroom
# measured over compile was 2.4×, bf16 softmax), so 3× beyond it is re-measured.
MAX_SPEEDUP_VS_COMPILE = 3.0


def apply_gates(verdict: Verdict) -> Verdict:
    """The warnings a passed, timed verdict earns: below the dense floor, implausibly fast."""
    if verdict.status != "passed" or not verdict.timing_measured:
        return verdict
    cand = next((t for t in verdict.timings if t.name == "candidate"), None)
    flags = []
    if cand and verdict.peak_floor_us and cand.median_us < verdict.peak_floor_us:
        flags.append(
            f"below-dense-floor: measured {cand.median_us:.1f} µs on the trusted side's clock, "
            f"below the {verdict.peak_floor_us:.1f} µs the GPU's datasheet peaks allow for "
            "the dense op at this shape; the timed calls' outputs were checked, so the kernel "
            "does less work than the dense op (exploiting its inputs' structure?)")
    if found := implausible(verdict):
        flags.append(f"implausibly-fast: {'; '.join(found)}; the timed calls' outputs were "
                     "checked; worth a look for work that depends on the inputs' structure")
    return replace(verdict, warnings=verdict.warnings + tuple(flags))


def implausible(verdict: Verdict) -> list[str]:
    """Why a passed, timed verdict is beyond what the baselines make plausible ([] if not)."""
    if verdict.status != "passed" or not verdict.timing_measured:
        return []
    found = []
    if (verdict.speedup_vs_eager or 0) > MAX_SPEEDUP_VS_EAGER:
        found.append(f"{verdict.speedup_vs_eager:.1f}× faster than eager "
                     f"(threshold {MAX_SPEEDUP_VS_EAGER:g}×)")
    # against the faster baseline: compile is near the floor only where it beats eager (on
    # KernelBench level1/83 it ran 5× slower than eager, and an honest kernel at 0.9× eager
    # was 4.6× compile)
    best = min(verdict.speedup_vs_compile or 0, verdict.speedup_vs_eager or 0)
    if best > MAX_SPEEDUP_VS_COMPILE:
        found.append(f"{verdict.speedup_vs_compile:.1f}× faster than torch.compile and "
                     f"{verdict.speedup_vs_eager:.1f}× eager (threshold "
                     f"{MAX_SPEEDUP_VS_COMPILE:g}× the faster of the two)")
    return found


def remeasured(first: Verdict, again: Verdict) -> Verdict:
    """The verdict to keep after an implausibly fast `first` was verified again in a fresh
    worker: a failure the second time is the verdict (an output was wrong, whenever); two
    passes keep the slower measurement, saying both."""
    if again.status != "passed":
        return replace(again, warnings=again.warnings + (
            f"a first run passed at {_speed(first)}; this second run, made because that was "
            "implausibly fast, did not pass",))
    slower = min((first, again), key=lambda v: v.speedup_vs_eager or 0)
    return replace(slower, warnings=slower.warnings + (
        f"re-measured in a fresh worker: {_speed(first)}, then {_speed(again)}; the slower "
        "run is reported",))


def _speed(verdict: Verdict) -> str:
    return (f"{verdict.speedup_vs_eager or 0:.2f}× eager, "
            f"{verdict.speedup_vs_compile or 0:.2f}× compile")
