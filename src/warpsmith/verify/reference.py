"""The trusted side of correctness: inputs from secret seeds, and the reference's outputs in
float64 (`exact`) and in the task's dtype (`ref`). None of it is reachable from the candidate's
process, which receives inputs and parameters only."""

from __future__ import annotations

import copy
import secrets
from dataclasses import dataclass, field

import torch
from torch.utils._pytree import tree_leaves

from ..config import VerifyProfile
from ..tasks.loader import build, make_inputs, tf32_policy
from ..types import Task


@dataclass
class Case:
    shape: str
    variant: str
    inputs: list
    exact: list[torch.Tensor]
    ref: list[torch.Tensor]


@dataclass
class Prepared:
    shapes: dict[str, dict]  # shape -> {"init_inputs", "state_dict"} for the candidate
    models: dict[str, torch.nn.Module]  # reference models, kept in the trusted process
    cases: list[Case]
    skipped_variants: list[str]
    probe_positions: dict[int, list[int]] = field(default_factory=dict)  # secret, per case


def prepare(task: Task, shapes: list[str], profile: VerifyProfile, device: str) -> Prepared:
    prepared = Prepared({}, {}, [], [])
    for shape in shapes:
        inst = build(task, shape, device=device, seed=secrets.randbits(31))
        prepared.models[shape] = inst.model
        prepared.shapes[shape] = {"init_inputs": inst.init_inputs,
                                  "state_dict": inst.model.state_dict()}
        exact_model = copy.deepcopy(inst.model).double()
        for variant, seed in _plan(profile):
            inputs = vary(make_inputs(task, shape, device, seed), variant, task, seed)
            case = _evaluate(task, inst.model, exact_model, shape, variant, inputs)
            if case is None:
                prepared.skipped_variants.append(f"{shape}/{variant}")
            else:
                prepared.cases.append(case)
    return prepared


def _plan(profile: VerifyProfile) -> list[tuple[str, int]]:
    plan = [("base", secrets.randbits(31)) for _ in range(profile.seeds)]
    return plan + [(v, secrets.randbits(31)) for v in profile.variants]


def vary(inputs: list, variant: str, task: Task, seed: int) -> list:
    """Distribution variants of the task's own inputs; non-negative inputs stay as they are."""
    if variant == "base":
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


def _evaluate(task, model, exact_model, shape, variant, inputs) -> Case | None:
    with torch.no_grad(), tf32_policy(task):
        ref = _tensors(model(*inputs))
        exact = _tensors(exact_model(*[_double(x) for x in inputs]))
    if variant != "base" and not all(torch.isfinite(t.double()).all() for t in exact + ref):
        return None  # the reference itself overflows here: this variant proves nothing
    return Case(shape, variant, inputs, exact, ref)


def _double(x):
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.double()
    return x


def _tensors(out) -> list[torch.Tensor]:
    return [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
