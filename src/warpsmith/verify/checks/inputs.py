"""The inputs of a call, made alike in whichever process asks: the trusted side (for the
reference) and the candidate's process (for the candidate) each make them from the task, the
shape, the seed and the variant, so GPU-sized inputs never cross a process boundary."""

from __future__ import annotations

import torch

from ...tasks.loader import make_inputs
from ...types import Shape, Task


def is_checked(variant: str) -> bool:
    return variant != "timing"


def case_inputs(task: Task, shape: Shape | str, device: str, seed: int, variant: str) -> list:
    """The same inputs in whichever process asks, for the same seed and variant."""
    return vary(make_inputs(task, shape, device, seed), variant, task, seed)


def vary(inputs: list, variant: str, task: Task, seed: int) -> list:
    """Distribution variants of the task's own inputs; inputs the task declares non-negative
    stay as they are."""
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
    if variant == "mixed":
        factor = 2.0 + 2.0 * torch.rand((), generator=gen).item()
        return _mixed_sign(x, factor, int(torch.randint(1 << 62, (), generator=gen)))
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


def _mixed_sign(x: torch.Tensor, factor: float, seed: int) -> torch.Tensor:
    """An input whose values all have one sign (torch.rand's, KernelBench's default) with
    each value's sign drawn at random and its magnitude ×2-4: a copy no longer passes for
    ReLU, nor an upper clamp alone for HardTanh (values beyond -1). An input with both signs
    already is left alone. Drawn on the input's device, so a GPU-sized input never passes
    through host memory, as x·(±factor) in a temporary of its own: at most one more input's
    worth (and a byte per element) beside x, which the memory plan counts."""
    if not needs_mixing(x):
        return x
    gen = torch.Generator(device=x.device).manual_seed(seed)
    flip = torch.randint(0, 2, x.shape, generator=gen, device=x.device, dtype=torch.uint8)
    signed = flip.to(x.dtype).mul_(-2.0).add_(1.0).mul_(factor)  # -factor where flipped
    del flip
    return signed.mul_(x)


def needs_mixing(x: torch.Tensor) -> bool:
    """A floating tensor whose values all have one sign (zeros aside)."""
    return x.numel() > 0 and not bool(x.min() < 0 < x.max())
