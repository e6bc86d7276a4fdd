"""`--format torch-op`: one run's winning verified kernel as a standalone drop-in module.

The written module imports only torch (and triton, for the kernel): never warpsmith. It embeds
the task's reference source and the candidate's source, execs each into its own namespace, and
registers a `torch.library.custom_op` ("warpsmith::<task stem>") that calls the candidate's
ModelNew only when the inputs match, exactly, one input signature the kernel was verified for
(shape, dtype, device type, contiguity; non-tensor inputs by value) and the reference Model
otherwise. Its fake (meta) implementation runs the reference on meta tensors, so the op traces
under torch.compile. docs/datasets.md ("torch-op: drop-in module") documents the module.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import torch

from ..errors import UsageError, WarpsmithError
from ..store.runs import Attempt
from ..tasks.loader import build
from ..tasks.suite import resolve_task
from ..types import Task
from .records import RunData, verified

TORCH_OP = "torch-op"

__all__ = ["TORCH_OP", "render", "winner"]


def winner(data: RunData) -> Attempt:
    """The run's best verified attempt: the highest timed speedup vs eager, else the first."""
    passed = [a for a in data.attempts if verified(a)]
    if not passed:
        raise UsageError(f"run {data.run.id!r} has no verified attempt: nothing to export "
                         "as a torch op (see `warpsmith runs show`)")
    timed = [a for a in passed if a.verdict.timing_measured and a.verdict.speedup_vs_eager]
    return max(timed, key=lambda a: a.verdict.speedup_vs_eager) if timed else passed[0]


def render(data: RunData) -> str:
    """The text of the drop-in module for the run's winning kernel."""
    best = winner(data)
    try:
        task = resolve_task(data.run.task)
    except WarpsmithError as e:
        raise UsageError(f"run {data.run.id!r}: its task {data.run.task!r} cannot be "
                         f"loaded ({e}); the torch op needs its reference") from None
    device_type = torch.device(best.verdict.device).type
    signatures, init_inputs, shape_values, out_kind = _verified(task, best)
    stem = re.sub(r"\W", "_", Path(task.path).stem)
    if not stem.isidentifier() or stem[0].isdigit():
        stem = f"task_{stem}"
    first = signatures[0]
    params = ", ".join(f"x{i}: {_annotation(kind)}" for i, (kind, *_) in enumerate(first))
    names = ", ".join(f"x{i}" for i in range(len(first)))
    returns = "torch.Tensor" if out_kind == "tensor" else "list[torch.Tensor]"
    return _TEMPLATE.format(
        task=task.name, run=data.run.id, attempt=f"#{best.number}", device_type=device_type,
        gpu=best.verdict.environment.get("gpu"), stem=stem,
        reference=_literal(task.source), candidate=_literal(best.source),
        dtype=task.dtype, signatures=_pretty(signatures), init_inputs=repr(init_inputs),
        shape_values=repr(shape_values), params=params, names=names, returns=returns,
        tuple_out=out_kind != "tensor", trailing="," if len(first) == 1 else "")


def _verified(task: Task, best: Attempt) -> tuple[list[tuple], list, dict, str]:
    """The input signatures of the declared shapes the verdict checked (built on the meta
    device), the init inputs and shape values the models are built with, and the output
    kind. Shapes whose init inputs differ from the first one's are left out of the guard."""
    declared = {s.name: s for s in task.shapes}
    checked = [declared[n] for n in best.verdict.shapes_checked if n in declared]
    if not checked:
        raise UsageError(f"attempt #{best.number}: its verdict checked none of the task's "
                         "declared shapes, so no input was verified")
    signatures, init_inputs, shape_values, out_kind = [], None, None, None
    for shape in checked:
        inst = build(task, shape, device="meta")
        init = [_plain(x, "init input") for x in inst.init_inputs]
        if init_inputs is None:
            init_inputs, shape_values = init, dict(shape.values)
            with torch.no_grad():
                out = inst.model(*inst.inputs)
            out_kind = _output_kind(out)
        elif init != init_inputs:
            continue
        sig = tuple(("tensor", tuple(x.shape), str(x.dtype).removeprefix("torch."))
                    if isinstance(x, torch.Tensor) else (type(x).__name__, _plain(x, "input"))
                    for x in inst.inputs)
        if sig not in signatures:
            signatures.append(sig)
    return signatures, init_inputs, shape_values, out_kind


def _plain(x, what: str):
    if isinstance(x, bool | int | float | str | None):
        return x
    if isinstance(x, list | tuple) and all(isinstance(v, bool | int | float) for v in x):
        return type(x)(x)
    raise UsageError(f"a torch op export needs plain values for every non-tensor {what}; "
                     f"got {type(x).__name__}")


def _output_kind(out) -> str:
    if isinstance(out, torch.Tensor):
        return "tensor"
    if isinstance(out, list | tuple) and out and all(isinstance(t, torch.Tensor) for t in out):
        return "tensors"
    raise UsageError("a torch op export needs a reference returning a tensor or a tuple of "
                     f"tensors; it returns {type(out).__name__}")


def _annotation(kind: str) -> str:
    return {"tensor": "torch.Tensor", "int": "int", "float": "float", "bool": "bool",
            "str": "str", "list": "list[int]", "tuple": "list[int]"}.get(kind, "float")


def _literal(source: str) -> str:
    """A raw triple-quoted literal when one can hold the text verbatim, else repr()."""
    if "'''" not in source and not source.endswith("\\") and "\r" not in source:
        literal = f"r'''{source}'''"
        if ast.literal_eval(literal) == source:
            return literal
    return repr(source)


def _pretty(signatures: list[tuple]) -> str:
    return "[\n" + "".join(f"    {sig!r},\n" for sig in signatures) + "]"


_TEMPLATE = '''\
"""Drop-in torch op exported by warpsmith: task {task}, run {run}, attempt {attempt}.

Verified on device type {device_type!r} (gpu: {gpu}). This module needs only torch and triton.

    import my_kernels
    y = my_kernels.forward(x)              # or my_kernels.Op()(x), an nn.Module
    y = torch.ops.warpsmith.{stem}(x)      # the custom op itself (also under torch.compile)

The op runs the verified kernel (the candidate's ModelNew) only when the inputs match one of
VERIFIED exactly: every tensor's shape and dtype, contiguous, on device type DEVICE_TYPE (on
the CPU, only when TRITON_INTERPRET=1 was set before this module was imported, as it was when
the kernel was verified); non-tensor inputs by value. Everything else runs the reference Model.
forward() also takes the reference, directly, when autograd needs a graph (the op has no
backward). CALLS counts the path each call took and LAST_PATH names the latest:
"candidate" or "reference". Both models are built as the verifier built them (seed 0, DTYPE);
load_state_dict() puts your weights into both.
"""

import copy
import linecache
import os

import torch

TASK = {task!r}
RUN_ID = {run!r}
ATTEMPT_ID = {attempt!r}
OP_NAME = "warpsmith::{stem}"
DEVICE_TYPE = {device_type!r}
DTYPE = {dtype!r}
# (kind, shape, dtype) per tensor input, (type, value) per other input
VERIFIED = {signatures}
INIT_INPUTS = {init_inputs}
SHAPE_VALUES = {shape_values}

CALLS = {{"candidate": 0, "reference": 0}}
LAST_PATH = None

REFERENCE_SOURCE = {reference}

CANDIDATE_SOURCE = {candidate}


def _load(part, source):
    """Exec `source` into its own namespace; linecache keeps its text for triton.jit."""
    filename = f"<warpsmith export {{RUN_ID}} {{part}}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {{"__name__": f"{{__name__}}.{{part}}", "__file__": filename}}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


_reference_ns = _load("reference", REFERENCE_SOURCE)
_reference_ns.update(SHAPE_VALUES)
_candidate_ns = _load("candidate", CANDIDATE_SOURCE)
Model = _reference_ns["Model"]
ModelNew = _candidate_ns["ModelNew"]


def _build(cls):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = cls(*copy.deepcopy(INIT_INPUTS))
    return model.to(dtype=getattr(torch, DTYPE)).eval()


_BASE = {{"reference": _build(Model), "candidate": _build(ModelNew)}}
_MODELS = {{}}  # (path, device) -> model on that device
_INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


def load_state_dict(state):
    """Load weights into the reference and (when its parameters match) the candidate."""
    _BASE["reference"].load_state_dict(state)
    new = _BASE["candidate"]
    if new.state_dict().keys() == _BASE["reference"].state_dict().keys():
        new.load_state_dict(_BASE["reference"].state_dict())
    _MODELS.clear()


_ref_state = _BASE["reference"].state_dict()
if _ref_state and _BASE["candidate"].state_dict().keys() == _ref_state.keys():
    _BASE["candidate"].load_state_dict(_ref_state)
_META_REFERENCE = copy.deepcopy(_BASE["reference"]).to("meta")


def _model(path, device):
    key = (path, str(device))
    if key not in _MODELS:
        _MODELS[key] = copy.deepcopy(_BASE[path]).to(device)
    return _MODELS[key]


def _signature(x):
    if isinstance(x, torch.Tensor):
        return ("tensor", tuple(x.shape), str(x.dtype).removeprefix("torch."))
    return (type(x).__name__, x)


def guard(*inputs):
    """True when the verified kernel may run on these inputs."""
    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    if not tensors or any(x.device.type != DEVICE_TYPE or not x.is_contiguous()
                          for x in tensors):
        return False
    if DEVICE_TYPE == "cpu" and not _INTERPRETED:
        return False
    return tuple(_signature(x) for x in inputs) in VERIFIED


def _device(inputs):
    return next(x.device for x in inputs if isinstance(x, torch.Tensor))


def _run(path, inputs):
    global LAST_PATH
    CALLS[path] += 1
    LAST_PATH = path
    return _model(path, _device(inputs))(*inputs)


def _own(out, inputs):
    """A custom op may not return its inputs' storage: copy an output that aliases one."""
    storages = {{x.untyped_storage().data_ptr() for x in inputs
                if isinstance(x, torch.Tensor) and x.numel()}}
    outs = [out] if isinstance(out, torch.Tensor) else list(out)
    outs = [o.clone() if o.numel() and o.untyped_storage().data_ptr() in storages else o
            for o in outs]
    return outs[0] if isinstance(out, torch.Tensor) else outs


def _dispatch(inputs):
    with torch.no_grad():
        out = _run("candidate" if guard(*inputs) else "reference", inputs)
    return _own(out, inputs)


def _fake(inputs):
    """Output metadata from the reference on meta tensors. Its parameters are made afresh
    here, so that under torch.compile they are fake tensors like the inputs."""
    meta = [x.to("meta") if isinstance(x, torch.Tensor) else x for x in inputs]
    state = {{name: torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")
             for name, t in [*_META_REFERENCE.named_parameters(),
                             *_META_REFERENCE.named_buffers()]}}
    out = torch.func.functional_call(_META_REFERENCE, state, tuple(meta))
    device = _device(inputs)
    outs = [out] if isinstance(out, torch.Tensor) else list(out)
    outs = [torch.empty_strided(o.shape, o.stride(), dtype=o.dtype, device=device)
            for o in outs]
    return outs[0] if isinstance(out, torch.Tensor) else outs


@torch.library.custom_op(OP_NAME, mutates_args=())
def {stem}({params}) -> {returns}:
    return _dispatch(({names}{trailing}))


@{stem}.register_fake
def _{stem}_fake({names}):
    return _fake(({names}{trailing}))


def forward(*inputs):
    """The drop-in call: the custom op, or the reference directly when autograd records."""
    if torch.is_grad_enabled() and any(isinstance(x, torch.Tensor) and x.requires_grad
                                       for x in inputs):
        return _run("reference", inputs)
    out = {stem}(*inputs)
    return tuple(out) if {tuple_out} else out


class Op(torch.nn.Module):
    """nn.Module wrapper around forward(), for dropping into a model."""

    def forward(self, *inputs):
        return forward(*inputs)
'''
