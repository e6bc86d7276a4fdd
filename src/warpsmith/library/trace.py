"""A task's reference forward as a small dataflow graph of ATen ops, one graph per shape.

The forward runs on the meta device (no memory, no arithmetic) under a dispatch mode, like the
cost counter in tasks/counting.py. Every tensor becomes a `Ref`: a forward input, a state_dict
entry, or an output of an earlier op. Arguments are bound to the op's schema names with the
defaults filled in, so `F.softplus(x)` and `F.softplus(x, 1, 20)` trace the same.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from ..errors import TaskError
from ..tasks.loader import build
from ..types import Task


@dataclass(frozen=True)
class Ref:
    kind: str  # "input", "param", "node", "const" (the positions of a Python list index,
    #            `v[:, [-1]]`), or "unknown" (a tensor made outside any traced op)
    key: Any  # input position, state_dict name, (node index, output index), the positions
    #           (a tuple of ints), or None


@dataclass(frozen=True)
class Meta:
    shape: tuple[int, ...]
    dtype: str  # "float32", "int64", …


@dataclass(frozen=True)
class Node:
    op: str  # the overload, as "relu.default"; in-place forms end in "_" ("add_.Scalar")
    args: tuple[tuple[str, Any], ...]  # (schema name, value): tensors are Refs, lists tuples
    outs: tuple[Meta, ...]

    def arg(self, name: str) -> Any:
        return dict(self.args)[name]

    @property
    def name(self) -> str:
        """The op without its overload, in-place marker dropped: "add" for "add_.Scalar"."""
        base = self.op.split(".")[0]
        return base.rstrip("_") or base

    @property
    def in_place(self) -> bool:
        """add_, relu_, __irshift__; never __rshift__ (a dunder op is in place when its name
        starts "__i")."""
        base = self.op.split(".")[0]
        if base.startswith("__") and base.endswith("__"):
            return base.startswith("__i")
        return base.endswith("_")

    @property
    def overload(self) -> str:
        return self.op.split(".", 1)[1]


@dataclass(frozen=True)
class Trace:
    shape: str
    arg_names: tuple[str, ...]  # the reference forward's parameter names
    inputs: tuple[Meta | None, ...]  # None for a forward argument that is not a tensor
    params: dict[str, Meta]  # every state_dict entry and non-persistent buffer (_state)
    nodes: tuple[Node, ...]
    output: Any  # a Ref, or a tuple of them when forward returns several tensors
    init_inputs: tuple[Any, ...]
    dtype: str  # the task's floating dtype
    allow_tf32: bool = False
    numbers: tuple = ()  # each forward argument that is a Python number, else None

    def meta(self, ref: Ref) -> Meta | None:
        if ref.kind == "input":
            return self.inputs[ref.key]
        if ref.kind == "param":
            return self.params[ref.key]
        if ref.kind == "node":
            node, out = ref.key
            return self.nodes[node].outs[out]
        return None


@dataclass(frozen=True)
class Untraceable:
    reason: str


def trace_task(task: Task) -> list[Trace] | Untraceable:
    """One trace per declared shape: a pattern must hold at every shape the task runs."""
    traces = []
    for shape in task.shapes:
        traced = trace_shape(task, shape.name)
        if isinstance(traced, Untraceable):
            return traced
        traces.append(traced)
    return traces


def trace_shape(task: Task, shape: str, replace: dict[int, Any] | None = None
                ) -> Trace | Untraceable:
    """`replace` swaps forward arguments (a Python number, to see which ops it reaches)."""
    try:
        inst = build(task, shape, device="meta")
    except TaskError as e:
        return Untraceable(f"building shape {shape!r} on the meta device failed: {e.message}")
    if replace:
        inst.inputs = [replace.get(i, x) for i, x in enumerate(inst.inputs)]
    recorder = _Recorder()
    recorder.name_inputs(inst.inputs)
    recorder.name_state(inst.model)
    try:
        with torch.no_grad(), _Indexing(recorder), recorder:
            out = inst.model(*inst.inputs)
    except Exception as e:  # the reference's own failure on meta (data-dependent code, …)
        return Untraceable(f"the reference forward cannot run on the meta device at shape "
                           f"{shape!r}: {type(e).__name__}: {e}")
    return Trace(
        shape=shape,
        arg_names=_forward_arg_names(inst.model, len(inst.inputs)),
        inputs=tuple(_meta(x) if isinstance(x, torch.Tensor) else None for x in inst.inputs),
        params={name: _meta(t) for name, t in _state(inst.model).items()},
        nodes=tuple(recorder.nodes),
        output=recorder.value(out),
        init_inputs=tuple(inst.init_inputs),
        dtype=task.dtype,
        allow_tf32=task.allow_tf32,
        numbers=tuple(x if isinstance(x, int | float) and not isinstance(x, bool) else None
                      for x in inst.inputs),
    )


class _Indexing(TorchFunctionMode):
    """`v[:, [-1]]` makes its index tensor below the dispatcher, on the meta device, so its
    values never reach the trace: the lists of ints a `__getitem__` is given are kept, in
    order, for the `index.Tensor` node it dispatches (_Recorder.value)."""

    MAX_LIST = 64  # longer lists stay unknown

    def __init__(self, recorder: _Recorder):
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.__getitem__ and len(args) == 2:
            items = args[1] if isinstance(args[1], tuple) else (args[1],)
            self.recorder.lists = [tuple(i) for i in items if _int_list(i, self.MAX_LIST)]
        return func(*args, **(kwargs or {}))


def _int_list(item: Any, limit: int) -> bool:
    return isinstance(item, list) and 0 < len(item) <= limit and all(
        type(i) is int for i in item)


class _Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.nodes: list[Node] = []
        self.refs: dict[int, Ref] = {}
        self.alive: list[torch.Tensor] = []  # held so that ids are never reused mid-trace
        self.lists: list[tuple[int, ...]] = []  # _Indexing's, for the next index.Tensor

    def name_inputs(self, inputs) -> None:
        for i, x in enumerate(inputs):
            if isinstance(x, torch.Tensor):
                self._bind(x, Ref("input", i))

    def name_state(self, model: torch.nn.Module) -> None:
        for name, t in _state(model).items():
            self._bind(t, Ref("param", name))

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        bound = _bind_schema(func, args, kwargs)
        if func is torch.ops.aten.index.Tensor:
            bound = self._constant_indices(bound)
        index = len(self.nodes)
        outs = [t for t in (out if isinstance(out, tuple | list) else (out,))]
        self.nodes.append(Node(
            op=f"{func.overloadpacket.__name__}.{func._overloadname}",
            args=tuple((name, self.value(v)) for name, v in bound),
            outs=tuple(_meta(t) if isinstance(t, torch.Tensor) else None for t in outs),
        ))
        for k, t in enumerate(outs):
            if isinstance(t, torch.Tensor):
                self._bind(t, Ref("node", (index, k)))
        return out

    def _constant_indices(self, bound: list) -> list:
        """The unknown index tensors of an index.Tensor, in order, as the lists of ints its
        `__getitem__` was given, where their sizes agree; the lists are used once."""
        lists, self.lists = self.lists, []
        indices = bound[1][1]
        unknown = [t for t in indices if isinstance(t, torch.Tensor) and id(t) not in self.refs]
        if len(unknown) != len(lists) or any(
                t.dim() != 1 or t.numel() != len(v) for t, v in zip(unknown, lists, strict=True)):
            return bound
        for t, v in zip(unknown, lists, strict=True):
            self._bind(t, Ref("const", v))
        return bound

    def value(self, v: Any) -> Any:
        """A plain, comparable form of an argument or output."""
        if isinstance(v, torch.Tensor):
            return self.refs.get(id(v), Ref("unknown", None))
        if isinstance(v, list | tuple):
            return tuple(self.value(x) for x in v)
        if isinstance(v, torch.dtype | torch.device | torch.layout | torch.memory_format):
            return str(v)
        return v

    def _bind(self, t: torch.Tensor, ref: Ref) -> None:
        self.refs[id(t)] = ref
        self.alive.append(t)


def _state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """The state_dict, and the buffers registered with persistent=False (RoPE's inv_freq):
    the verifier hands those to a candidate entry of the same name (verify/child/models.py),
    so a kernel may read them as it reads a parameter."""
    state = dict(model.state_dict(keep_vars=True))
    return state | {k: t for k, t in model.named_buffers() if k not in state}


def _bind_schema(func, args, kwargs) -> list[tuple[str, Any]]:
    bound = []
    for i, a in enumerate(func._schema.arguments):
        if i < len(args) and not a.kwarg_only:
            value = args[i]
        elif a.name in kwargs:
            value = kwargs[a.name]
        elif a.has_default_value():
            value = a.default_value
        else:
            value = None
        bound.append((a.name, value))
    return bound


def _meta(t: torch.Tensor) -> Meta:
    return Meta(tuple(int(d) for d in t.shape), str(t.dtype).removeprefix("torch."))


def _forward_arg_names(model: torch.nn.Module, count: int) -> tuple[str, ...]:
    """The reference's names when they are plain positional parameters, else x0, x1, …"""
    try:
        params = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    plain = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(plain) >= count and all(n.isidentifier() and n not in RESERVED for n in plain):
        return tuple(plain[:count])
    return tuple(f"x{i}" for i in range(count))


# Names the rendered forward uses itself; a reference argument called so is renamed.
RESERVED = {"self", "out", "torch", "nn", "triton", "tl", "math", "n", "grid"}
