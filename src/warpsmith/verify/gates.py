"""Plausibility gates on timed verdicts. A time below the dense op's datasheet floor is
flagged, never rejected: it is the trusted side's clock over calls whose outputs it checked,
and a kernel that exploits the structure of the task's inputs (a triangular operand, zeros)
honestly does less work than the dense floor assumes (KernelBench level1/14, 15). Far faster
than the baselines still needs a reviewer before it counts (suspect)."""

from __future__ import annotations

from dataclasses import replace

from ..types import Task, Verdict

MAX_SPEEDUP_VS_EAGER = 10.0
# torch.compile is near the floor on simple ops (shared/MEASURED.md: the largest headroom
# measured over compile was 2.4×, bf16 softmax), so 3× beyond it needs a look.
MAX_SPEEDUP_VS_COMPILE = 3.0


def apply_gates(verdict: Verdict, task: Task, accept_suspect: bool = False) -> Verdict:
    if verdict.status != "passed" or not verdict.timing_measured:
        return verdict
    cand = next((t for t in verdict.timings if t.name == "candidate"), None)
    if cand and verdict.peak_floor_us and cand.median_us < verdict.peak_floor_us:
        verdict = replace(verdict, warnings=verdict.warnings + (
            f"below-dense-floor: measured {cand.median_us:.1f} µs on the trusted side's clock, "
            f"below the {verdict.peak_floor_us:.1f} µs the GPU's datasheet peaks allow for "
            "the dense op at this shape; the timed calls' outputs were checked, so the kernel "
            "does less work than the dense op (exploiting its inputs' structure?)",))
    suspicions = _suspicions(verdict)
    if suspicions and not accept_suspect:
        return replace(verdict, status="suspect", reasons=tuple(suspicions) + (
            "review the kernel for skipped work, cached results or timing tricks, then "
            "re-run with --accept-suspect",))
    return verdict


def _suspicions(verdict: Verdict) -> list[str]:
    found = []
    if (verdict.speedup_vs_eager or 0) > MAX_SPEEDUP_VS_EAGER:
        found.append(f"{verdict.speedup_vs_eager:.1f}× faster than eager "
                     f"(threshold {MAX_SPEEDUP_VS_EAGER:g}×)")
    # against the faster baseline: compile is near the floor only where it beats eager (on
    # KernelBench level1/83 it ran 5× slower than eager, and an honest kernel at 0.9× eager
    # was held as 4.6× compile)
    best = min(verdict.speedup_vs_compile or 0, verdict.speedup_vs_eager or 0)
    if best > MAX_SPEEDUP_VS_COMPILE:
        found.append(f"{verdict.speedup_vs_compile:.1f}× faster than torch.compile and "
                     f"{verdict.speedup_vs_eager:.1f}× eager (threshold "
                     f"{MAX_SPEEDUP_VS_COMPILE:g}× the faster of the two)")
    return found
