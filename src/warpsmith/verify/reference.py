"""The trusted side of correctness: inputs from fresh random seeds, and the reference's outputs
at high precision (`exact`) and in the task's dtype (`ref`). The expected outputs never leave
this process; the candidate's process gets the parameters and the seeds, drawn anew each run,
and regenerates the same inputs itself (so GPU-sized inputs never cross a process boundary).
Knowing a seed at run time tells a candidate nothing its inputs do not."""

from __future__ import annotations

import copy
import secrets
from dataclasses import dataclass, field

import torch
from torch.utils._pytree import tree_leaves

from ..config import VerifyProfile
from ..tasks.loader import build, make_inputs, tf32_policy
from ..types import Shape, Task


@dataclass
class Case:
    shape: str
    variant: str
    seed: int
    exact: list[torch.Tensor]
    ref: list[torch.Tensor]
    probes: list[int] = field(default_factory=list)  # timing cases: secret positions


@dataclass
class Prepared:
    shapes: dict[str, dict]  # shape -> {"init_inputs", "state_dict"} for the candidate
    models: dict[str, torch.nn.Module]  # reference models, kept in the trusted process
    cases: list[Case]
    skipped_variants: list[str]
    probe_positions: dict[int, list[int]] = field(default_factory=dict)  # secret, per case
    timed_shape: str | None = None


def prepare(task: Task, shapes: list[str], profile: VerifyProfile, device: str) -> Prepared:
    prepared = Prepared({}, {}, [], [])
    prepared.timed_shape = shapes[-1]  # the task's last declared shape, its largest
    declared = [task.shape(name) for name in shapes]
    twin = perturbed(declared[0])
    for shape in declared + ([twin] if twin else []):
        plan = _plan(profile, shape.name == prepared.timed_shape and device == "cuda",
                     twin=shape is twin)
        try:
            _prepare_shape(task, shape, plan, device, prepared)
        except Exception:  # the twin is ours, not the task's: a task that cannot take it
            if shape is not twin:  # is checked without it
                raise
            _forget(prepared, twin.name)
            prepared.skipped_variants.append(f"{twin.name} (the task does not run there)")
    prepared.probe_positions = {i: c.probes for i, c in enumerate(prepared.cases)
                                if c.variant == "timing"}
    return prepared


def _keep_probes(case: Case, count: int = 64) -> Case:
    """A timing case is only ever probed: keep the expected values at secret positions of its
    first output and let go of the rest (at GPU shapes, gigabytes per case)."""
    numel = case.ref[0].numel() if case.ref else 1
    case.probes = [secrets.randbelow(max(1, numel)) for _ in range(count)]
    if case.ref:
        idx = torch.tensor(case.probes, device=case.ref[0].device)
        case.exact, case.ref = ([t.reshape(-1)[idx]] for t in (case.exact[0], case.ref[0]))
    return case


def _forget(prepared: Prepared, name: str) -> None:
    prepared.models.pop(name, None)
    prepared.shapes.pop(name, None)
    prepared.cases = [c for c in prepared.cases if c.shape != name]


def perturbed(shape: Shape) -> Shape | None:
    """A secret twin of a shape: every size of 8 or more grows by 1 to 3, so a kernel
    hard-coded to the declared sizes fails (E13). Smaller constants (kernel sizes, strides,
    head counts) are left alone."""
    values = {k: v + 1 + secrets.randbelow(3) if _is_size(v) else v
              for k, v in shape.values.items()}
    if values == shape.values:
        return None
    return Shape(f"{shape.name}~", values)


def _is_size(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 8


def _prepare_shape(task, shape: Shape, plan, device, prepared: Prepared) -> None:
    inst = build(task, shape, device=device, seed=secrets.randbits(31))
    prepared.models[shape.name] = inst.model
    prepared.shapes[shape.name] = {"init_inputs": inst.init_inputs, "values": shape.values,
                                   "state_dict": inst.model.state_dict()}
    high = exact_dtype(task, device)
    exact_model = copy.deepcopy(inst.model).to(high)
    for variant, seed in plan:
        inputs = case_inputs(task, shape, device, seed, variant)
        case = _evaluate(task, (inst.model, exact_model, high), shape.name, variant, seed,
                         inputs)
        if case is None:
            prepared.skipped_variants.append(f"{shape.name}/{variant}")
        else:
            prepared.cases.append(_keep_probes(case) if variant == "timing" else case)


def _plan(profile: VerifyProfile, timed: bool, twin: bool) -> list[tuple[str, int]]:
    """(variant, fresh seed) for every call of one shape. The secret twin needs one base and
    one varied call; the timed shape on a GPU adds "timing" sets, fresh inputs for timed calls
    only, so a kernel cannot replay answers it computed while checked (E18, E20)."""
    variants = ["base"] * profile.seeds + list(profile.variants)
    if twin:
        variants = variants[:1] + list(profile.variants[:1])
    if timed:
        variants += ["timing"] * profile.timing_sets
    return [(v, secrets.randbits(31)) for v in variants]


def checked(cases: list[Case]) -> list[Case]:
    """The cases run (and compared) before timing; "timing" cases are only ever timed."""
    return [c for c in cases if c.variant != "timing"]


def exact_dtype(task: Task, device: str) -> torch.dtype:
    """float64 for fp32 tasks and on the CPU; float32 for 16-bit tasks on a GPU, where fp32's
    error is far below the tolerance and float64 attention at GPU shapes would not fit."""
    if device == "cuda" and task.dtype != "float32":
        return torch.float32
    return torch.float64


def case_inputs(task: Task, shape: Shape | str, device: str, seed: int, variant: str) -> list:
    """The same inputs in whichever process asks, for the same seed and variant."""
    return vary(make_inputs(task, shape, device, seed), variant, task, seed)


def vary(inputs: list, variant: str, task: Task, seed: int) -> list:
    """Distribution variants of the task's own inputs; non-negative inputs stay as they are."""
    if variant in ("base", "timing"):
        return inputs
    gen = torch.Generator().manual_seed(seed)
    out = []
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor) or not x.is_floating_point() \
                or i in task.nonnegative_inputs:
            out.append(x)
            continue
        out.append(_vary_one(x, variant, gen))
    return out


def _vary_one(x: torch.Tensor, variant: str, gen: torch.Generator) -> torch.Tensor:
    std = x.float().std().item() if x.numel() > 1 else 1.0
    if variant == "scaled":
        factor = 4.0 + 12.0 * torch.rand((), generator=gen).item()
        return x * factor
    if variant == "shifted":
        shift = (1.0 + torch.rand((), generator=gen).item()) * (std or 1.0)
        return x + shift
    if variant == "heavy":  # heavy tails: a few values far out
        mask = torch.rand(x.shape, generator=gen) < 0.01
        return torch.where(mask.to(x.device), x * 20.0, x)
    raise ValueError(f"unknown variant {variant}")


def _evaluate(task, models, shape, variant, seed, inputs) -> Case | None:
    model, exact_model, dtype = models
    with torch.no_grad(), tf32_policy(task):
        ref = _tensors(model(*inputs))
        exact = _tensors(exact_model(*[_upcast(x, dtype) for x in inputs]))
    finite = all(torch.isfinite(t.double()).all() for t in exact + ref)
    if variant not in ("base", "timing") and not finite:
        return None  # the reference itself overflows here: this variant proves nothing
    return Case(shape, variant, seed, exact, ref)  # the inputs are not kept: the worker
    # regenerates them from the seed


def _upcast(x, dtype):
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.to(dtype)
    return x


def _tensors(out) -> list[torch.Tensor]:
    return [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
