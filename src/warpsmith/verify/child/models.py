"""The candidate's models, built in its worker as the reference's were: the same constructor
arguments, on the device, holding the reference's parameters where they match (so the
order in which random weights were drawn is moot), in the task's mode."""

from __future__ import annotations

import copy

import torch

from ...tasks.loader import apply_mode


def spec_of(reference: torch.nn.Module, init_inputs, mode) -> dict:
    """What builds a candidate like the reference (make_model), from the reference model:
    its state_dict, its non-persistent buffers, the task's MODE."""
    state = reference.state_dict()
    return {"init_inputs": init_inputs, "state_dict": state, "mode": mode,
            "buffers": {k: t for k, t in reference.named_buffers() if k not in state}}


def make_model(module, spec: dict, device: torch.device) -> torch.nn.Module:
    with torch.device(device):
        model = module.ModelNew(*spec["init_inputs"])
    model = model.to(device)
    load_matching(model, spec["state_dict"])
    load_unsaved(model, spec.get("buffers", {}))
    return apply_mode(model, spec.get("mode"))  # the task's MODE, else as constructed


def load_matching(model: torch.nn.Module, reference_state: dict) -> None:
    """Copy the reference's parameters where names and shapes match, so RNG order is moot,
    in the reference's dtype: the task's DTYPE casts the reference model (tasks/loader.py),
    so a candidate built as it is (an nn.Linear in a float16 task) holds float16 weights as
    the reference does, not float32 ones that its float16 inputs cannot be multiplied by.
    A reference entry with no namesake goes to the candidate's next unclaimed entry of its
    shape, in registration order: LLM kernels often hold `self.weight` where the reference
    has `conv.weight`, made in the same order, which KernelBench's seeded construction
    gives the same values; copied by name alone it kept its own random ones."""
    own = model.state_dict()
    matching = {k: k for k, v in reference_state.items()
                if k in own and own[k].shape == v.shape}
    unclaimed = [k for k in own if k not in matching and k not in reference_state]
    for ref_name, value in reference_state.items():
        if ref_name in own:  # a namesake of another shape is the candidate's own business
            continue
        twin = next((k for k in unclaimed if _same_kind(own[k], value)), None)
        if twin is not None:
            unclaimed.remove(twin)
            matching[ref_name] = twin
    for ref_name, name in matching.items():
        value = reference_state[ref_name]
        if own[name].dtype != value.dtype and own[name].is_floating_point() and \
                value.is_floating_point():
            held = _parameter_or_buffer(model, name)
            held.data = held.data.to(value.dtype)
    model.load_state_dict({name: reference_state[ref] for ref, name in matching.items()},
                          strict=False)


def load_unsaved(model: torch.nn.Module, buffers: dict) -> None:
    """The reference's non-persistent buffers into the candidate's parameters or buffers of
    the same name and shape (saved or not), in the reference's dtype."""
    own = dict(model.named_parameters()) | dict(model.named_buffers())
    with torch.no_grad():
        for name, value in buffers.items():
            if name in own and own[name].shape == value.shape:
                held = _parameter_or_buffer(model, name)
                held.data = value.to(device=held.device, dtype=value.dtype).clone()


def _same_kind(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.is_floating_point() == b.is_floating_point()


def _parameter_or_buffer(model: torch.nn.Module, name: str) -> torch.Tensor:
    try:
        return model.get_parameter(name)
    except AttributeError:
        return model.get_buffer(name)


def set_sizes(module, values: dict) -> None:
    """A shape's module-level sizes, set in the candidate's module too where it defines the
    same names as values of the same kind. The reference runs each shape in an import of its
    own with them set (tasks/loader.py); a candidate whose model reads them as the reference
    does (KernelBench's 33_VanillaRNN: `torch.randn((batch_size, hidden_size))` in
    `__init__`) kept its file's values and failed every other size, the secret twin and the
    CPU's halved copy among them, while a size written as a literal still fails there."""
    own = module.__dict__
    for name, value in values.items():
        if name in own and type(own[name]) is type(value):
            own[name] = copy.deepcopy(value)  # not the job's own list: the worker reads it


def own_sizes(module, shapes: dict) -> dict:
    """The candidate's values of every name some shape sets, as its file has them: a shape
    that sets none (a KernelBench file's declared one) is checked with these again after
    the twin's model was built with its own."""
    own = module.__dict__
    names = {name for spec in shapes.values() for name in spec["values"]}
    return {name: copy.deepcopy(own[name]) for name in names if name in own}
