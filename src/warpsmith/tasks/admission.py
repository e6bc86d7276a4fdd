"""Admission checks: the traps that let a suite be 'solved' by a copy or a zero fill.

Each check returns a list of problems (empty when the task is fine), so a test or a command can
report all of them at once.
"""

from __future__ import annotations

import torch
from torch.utils._pytree import tree_leaves

from ..types import Task
from .counting import count_cost
from .loader import Instance, build

NEAR_ZERO = 1e-2  # an output entirely inside ±0.01 is solved by zeros under loose tolerances
MIN_STD = 1e-3


def admission_problems(task: Task, shape: str = "small") -> list[str]:
    inst = build(task, shape, seed=0)
    other = build(task, shape, seed=1)  # another draw of parameters and inputs
    out = _outputs(inst)
    problems = _output_problems(inst, other, out)
    problems += _determinism_problems(inst, out)
    problems += _input_problems(task, inst, other, out)
    problems += _parameter_problems(inst, out)
    problems += _count_problems(task)
    return problems


def _outputs(inst: Instance) -> list[torch.Tensor]:
    with torch.no_grad():
        out = inst.model(*inst.inputs)
    return [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]


def _output_problems(inst: Instance, other: Instance, out: list[torch.Tensor]) -> list[str]:
    if not out:
        return ["forward returns no tensor"]
    problems = []
    for i, t in enumerate(out):
        values = t.double()
        if not torch.isfinite(values).all():
            problems.append(f"output {i} has NaN or Inf")
        elif values.abs().max() < NEAR_ZERO:
            problems.append(f"output {i} lies entirely within ±{NEAR_ZERO}")
        elif t.numel() > 1 and values.std() < MIN_STD:
            problems.append(f"output {i} is (nearly) constant: std {values.std():.2e}")
        for j, x in enumerate(inst.inputs):
            if isinstance(x, torch.Tensor) and x.shape == t.shape and torch.equal(x, t):
                problems.append(f"output {i} equals input {j}")
    if all(_same(a, b) for a, b in zip(out, _outputs(other), strict=False)):
        problems.append("output does not change when the inputs are drawn with another seed")
    return problems


def _determinism_problems(inst: Instance, out: list[torch.Tensor]) -> list[str]:
    rng = torch.get_rng_state()
    again = _outputs(inst)
    problems = []
    if not torch.equal(rng, torch.get_rng_state()):
        problems.append("forward draws random numbers (dropout or sampling)")
    if not all(torch.equal(a, b) for a, b in zip(out, again, strict=False)):
        problems.append("forward is not deterministic: two calls on the same inputs differ")
    if any(m.training for m in inst.model.modules()):
        problems.append("model is in training mode")
    return problems


def _input_problems(task: Task, inst: Instance, other: Instance, out) -> list[str]:
    problems = []
    redrawn = other.inputs
    for i, x in enumerate(inst.inputs):
        if not isinstance(x, torch.Tensor):
            continue
        if x.is_floating_point() and i not in task.nonnegative_inputs \
                and not (x.min() < 0 < x.max()):
            problems.append(f"input {i} is not mixed-sign "
                                "(list it in NONNEGATIVE_INPUTS if it must be)")
        changed = list(inst.inputs)
        changed[i] = _perturb(x, positive=i in task.nonnegative_inputs, other=redrawn[i])
        if _same_all(out, _outputs(Instance(inst.model, changed, inst.init_inputs))):
            problems.append(f"input {i} does not change the output")
    return problems


def _parameter_problems(inst: Instance, out) -> list[str]:
    problems = []
    for name, p in inst.model.named_parameters():
        saved = p.detach().clone()
        with torch.no_grad():
            p.copy_(_perturb(saved, positive=False, other=None))
        if _same_all(out, _outputs(inst)):
            problems.append(f"parameter {name} does not change the output")
        with torch.no_grad():
            p.copy_(saved)
    return problems


def _count_problems(task: Task) -> list[str]:
    problems = []
    for shape in task.shapes:
        cost = count_cost(task, shape.name)
        if not cost.countable:
            problems.append(f"shape {shape.name}: FLOPs not countable, no rule for "
                            f"{', '.join(cost.uncounted_ops)}")
    return problems


def _perturb(x: torch.Tensor, positive: bool, other) -> torch.Tensor:
    if not x.is_floating_point():
        return other  # integer inputs (indices, targets) are redrawn
    gen = torch.Generator().manual_seed(1234)
    noise = torch.randn(x.shape, generator=gen).to(x.dtype)
    if positive:
        return x * torch.exp(0.3 * noise)
    scale = x.double().std().item() if x.numel() > 1 else 0.0
    return x + noise * (0.5 * scale if scale > 0 else 0.5)


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape:
        return False
    a, b = a.double(), b.double()
    return bool(((a - b).abs().max() <= 1e-6 * max(1.0, a.abs().max().item())).item())


def _same_all(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
