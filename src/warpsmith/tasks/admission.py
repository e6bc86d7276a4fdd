"""Admission checks: the traps that let a suite be 'solved' by a copy or a zero fill.

Each check returns a list of problems (empty when the task is fine), so a test or a command can
report all of them at once. Built-in tasks must pass every check (tests); any other task, a
KernelBench file among them, gets the checks that are about its meaning as warnings
(`admission_warnings`), at a size the CPU runs in seconds.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace

import torch
from torch.utils._pytree import tree_leaves

from ..errors import TaskError
from ..types import Shape, Task
from .counting import count_cost, ran_on_meta
from .loader import Instance, build, import_task_module

NEAR_ZERO = 1e-2  # an output entirely inside ±0.01 is solved by zeros under loose tolerances
MIN_STD = 1e-3
# A built-in task whose forward depends on the mode must say which (MODE); KernelBench's
# files run as constructed (training mode), their own semantics, so not a warning there.
TRAINING = "forward differs between train() and eval(): declare MODE = 'train' or 'eval'"


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


def semantic_problems(task: Task, shape: str) -> list[str]:
    """The checks about what the reference computes (constant or copied output, inputs and
    parameters that do not matter, randomness), not about how a warpsmith task is written."""
    inst = build(task, shape, seed=0)
    other = build(task, shape, seed=1)
    out = _outputs(inst)
    problems = _output_problems(inst, other, out)
    problems += [p for p in _determinism_problems(inst, out) if p != TRAINING]
    problems += _input_problems(task, inst, other, out, signs=False)
    return problems + _parameter_problems(inst, out)


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
    if getattr(inst, "mode", None) is None and _mode_matters(inst):
        problems.append(TRAINING)
    return problems


def _mode_matters(inst: Instance) -> bool:
    """Whether forward's outputs differ in the two modes, on copies (a training BatchNorm
    updates its running statistics)."""
    outs = []
    for training in (True, False):
        model = copy.deepcopy(inst.model).train(training)
        torch.manual_seed(0)
        outs.append(_outputs(Instance(model, inst.inputs, inst.init_inputs)))
    return not _same_all(*outs)


def _input_problems(task: Task, inst: Instance, other: Instance, out,
                    signs: bool = True) -> list[str]:
    problems = []
    redrawn = other.inputs
    for i, x in enumerate(inst.inputs):
        if not isinstance(x, torch.Tensor):
            continue
        if signs and x.is_floating_point() and i not in task.nonnegative_inputs \
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


# What the CPU checks in seconds: each check calls forward about eight times.
CHECK_MAX_BYTES = 64 << 20
CHECK_MAX_FLOPS = 4_000_000_000
MIN_SHRUNK = 16  # a module-level size is halved no lower than this
MAX_HALVINGS = 12


def admission_warnings(task: Task) -> list[str]:
    """The semantic checks as warnings, for any task: on its `small` shape where it declares
    one, else on its own shape, or, where that is too large for the CPU, on a copy with its
    module-level sizes halved until it fits (a KernelBench file declares no small shape)."""
    try:
        checked, shape = checkable(task)
    except TooLarge as e:
        return [f"admission not checked: {e}"]
    try:
        return semantic_problems(checked, shape)
    except TaskError as e:
        return [f"admission not checked: {e.message}"]


class TooLarge(Exception):
    """No size of a task fits the limits it must run within."""


def checkable(task: Task) -> tuple[Task, str]:
    """The task and shape admission checks: `small` where declared, else CPU-sized."""
    if "small" in [s.name for s in task.shapes]:
        return task, "small"
    return cpu_sized(task, CHECK_MAX_BYTES, CHECK_MAX_FLOPS)


def cpu_sized(task: Task, max_bytes: int, max_flops: float) -> tuple[Task, str]:
    """The task's own shape where it fits the limits, else a copy with one shape named
    'cpu' whose module-level sizes are halved until it does; TooLarge when none fits.
    Structural parameters (kernel sizes, strides, padding, dilation, groups) are kept, so a
    kernel that is wrong for the official structure is wrong on the copy too (issue 27)."""
    name = task.shapes[0].name
    cost = count_cost(task, name)
    if not ran_on_meta(cost):
        raise TooLarge("its reference cannot run on the meta device, so no size that fits "
                       "the CPU can be chosen")
    if _fits(cost, max_bytes, max_flops):
        return task, name
    sizes = data_sizes(_sizes(task))
    found = _halve_together(task, sizes, max_bytes, max_flops)
    if found is None:  # some size cannot halve that far (a dilated kernel's extent, groups),
        # or the sizes of 32 and less (never halved together) hold most of the bytes
        found = _halve_each(task, data_sizes(_sizes(task, _shrinkable)), max_bytes, max_flops)
    if found is None:
        raise TooLarge(f"no size of it fits the CPU ({max_bytes / 1e6:g} MB, "
                       f"{max_flops / 1e9:g} GFLOP a call), halving its sizes down to "
                       f"{MIN_SHRUNK}")
    return found, "cpu"


def _halve_together(task: Task, sizes: dict, max_bytes: int, max_flops: float) -> Task | None:
    """Every size halved the same number of times, until the copy fits; None when a halving
    breaks the task before one fits."""
    for halvings in range(1, MAX_HALVINGS + 1):
        shrunk = _with_sizes(task, {k: _halved(v, halvings) for k, v in sizes.items()})
        cost = count_cost(shrunk, "cpu")
        if not ran_on_meta(cost):
            return None
        if _fits(cost, max_bytes, max_flops):
            return shrunk
        if shrunk.shape("cpu").values == {k: _halved(v, halvings + 1) for k, v in sizes.items()}:
            break  # every size is down to MIN_SHRUNK
    return None


def _halve_each(task: Task, sizes: dict, max_bytes: int, max_flops: float) -> Task | None:
    """One size at a time, each halving kept only where the task still runs: a size that
    another constrains (channels a fixed `groups` divides, an extent a dilated kernel
    spans) stops where it must, and the others go on."""
    values, frozen = dict(sizes), set()
    for _ in range(MAX_HALVINGS):
        for key in [k for k in sizes if k not in frozen]:
            trial = values | {key: _halved(values[key], 1, _floor(key))}
            if trial[key] == values[key]:
                frozen.add(key)
                continue
            cost = count_cost(_with_sizes(task, trial), "cpu")
            if not ran_on_meta(cost):
                frozen.add(key)
                continue
            values = trial
            if _fits(cost, max_bytes, max_flops):
                return _with_sizes(task, values)
    return None


def _with_sizes(task: Task, values: dict) -> Task:
    return replace(task, shapes=(Shape("cpu", values),))


# A module-level constant whose name says it shapes the computation rather than sizes the data.
_STRUCTURAL = re.compile(r"kernel|stride|pad|dilation|groups", re.IGNORECASE)


def data_sizes(sizes: dict) -> dict:
    """The sizes a CPU copy or the verifier's secret twin may change: all but the structural
    parameters (kernel_size, stride, padding, output_padding, dilation, groups), which
    change what every index computes (KernelBench level1/41's kernel_size = 8 grew to 10
    on the twin and the kernel was held to a window it was not written for). A structural
    value that equals a data size (a depthwise conv's groups = in_channels) stays with it:
    equal sizes change alike, so the conv stays depthwise."""
    data = {k: v for k, v in sizes.items() if not _STRUCTURAL.search(k)}
    values = {e for v in data.values() for e in (v if type(v) in (tuple, list) else (v,))}
    return {k: v for k, v in sizes.items() if k in data or _all_in(v, values)}


def _all_in(value, values: set) -> bool:
    return all(e in values for e in (value if type(value) in (tuple, list) else (value,)))


def _halved(value, halvings: int, floor: int = MIN_SHRUNK):
    """A size, or a tuple or list of sizes (each element that is one), halved `halvings`
    times, never below `floor`: equal sizes stay equal."""
    if type(value) in (tuple, list):
        return type(value)(_halved(e, halvings, floor) if _big(e) else e for e in value)
    return max(floor, value >> halvings)


def _floor(name: str) -> int:
    """A batch indexes whole images or rows, so it may shrink to 2 (two, so the batch stride
    is still used); any other size to MIN_SHRUNK."""
    return 2 if "batch" in name.lower() else MIN_SHRUNK


def _shrinkable(name: str, value) -> bool:
    return type(value) is int and value > _floor(name)


def _fits(cost, max_bytes: int, max_flops: float) -> bool:
    return cost.bytes <= max_bytes and (not cost.countable or cost.flops <= max_flops)


def _sizes(task: Task, is_size=None) -> dict:
    """The module's integer constants large enough to be sizes (batch, features, lengths),
    and its tuples and lists holding such sizes (KernelBench's `input_shape = (32768,)`,
    level 3's `layer_sizes = [16384, 16384]`: never halved, no MLP fitted the CPU)."""
    module = import_task_module(task.path)
    base = task.shapes[0].values
    found = {k: base.get(k, v) for k, v in vars(module).items() if not k.startswith("_")}
    if is_size is not None:  # by name and value (_shrinkable)
        return {k: v for k, v in found.items() if is_size(k, v)}
    return {k: v for k, v in found.items() if holds_size(v, _big)}


def holds_size(value, is_size) -> bool:
    """A size by `is_size`, or a non-empty tuple or list of integers holding one."""
    return is_size(value) or (type(value) in (tuple, list) and bool(value) and
                              all(type(e) is int for e in value) and any(map(is_size, value)))


def _big(value) -> bool:
    return type(value) is int and value > 2 * MIN_SHRUNK
