"""Load KernelBench-format task files and build a task's model and inputs for one shape.

Precision: a task means what its file says. Every input, parameter and buffer keeps the dtype
the file gives it (bf16, fp16, a bf16 activation beside an fp32 residual, a complex64 buffer,
integer indices), unless the file declares warpsmith's own `DTYPE`, which casts every floating
tensor to it. A KernelBench suite keeps KernelBench's semantics this way: its files make
float32 tensors and leave precision to the harness, whose default is float32. The decision
rests on the file alone, so the candidate's process, which loads a copy of the file, makes
the same inputs as the trusted side.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from .. import pyparse
from ..errors import TaskError
from ..types import Shape, Task

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
FLOATING = {"float64": torch.float64} | DTYPES  # what a file may make, widest first
REQUIRED = ("Model", "get_inputs", "get_init_inputs")
MODES = ("train", "eval")  # MODE's values; without it a model runs as constructed (KernelBench)
_module_ids = itertools.count()


@dataclass
class Instance:
    """A reference model and one set of inputs, ready to call."""

    model: torch.nn.Module
    inputs: list[Any]
    init_inputs: list[Any]
    mode: str | None = None  # the task's MODE, applied to the candidate's model as well


def load_task(path: Path | str, name: str | None = None, level: str | None = None) -> Task:
    path = Path(path)
    if not path.is_file():
        raise TaskError(path, "no such file")
    module = import_task_module(path)
    missing = [n for n in REQUIRED if not hasattr(module, n)]
    if missing:
        raise TaskError(path, f"not a task: defines no {', '.join(missing)} "
                        "(a task file needs class Model, get_inputs() and get_init_inputs())")
    _mode(path, module)  # a bad MODE is the file's error, found when it loads
    return Task(
        name=name or path.stem,
        path=path.resolve(),
        description=_description(path, module),
        shapes=_shapes(path, module),
        dtype=_dtype(path, module),
        allow_tf32=bool(getattr(module, "ALLOW_TF32", False)),
        tolerance=_tolerance(path, module),
        allowed_torch=tuple(getattr(module, "ALLOWED_TORCH", ())),
        nonnegative_inputs=tuple(getattr(module, "NONNEGATIVE_INPUTS", ())),
        level=level,
    )


def import_task_module(path: Path) -> ModuleType:
    """Import a task file as a fresh module, turning every failure into a TaskError."""
    try:
        pyparse.parse(path.read_text(), filename=str(path))
    except SyntaxError as e:
        raise TaskError(path, f"syntax error on line {e.lineno}: {e.msg}") from None
    except UnicodeDecodeError as e:
        raise TaskError(path, f"not Python source (not UTF-8 text: byte {e.start} is "
                              f"{e.object[e.start]:#04x}); give the .py file defining Model"
                        ) from None
    except OSError as e:
        raise TaskError(path, f"cannot read: {e.strerror or e}") from None
    module_name = f"warpsmith_task_{next(_module_ids)}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        with _prints_to_stderr():
            spec.loader.exec_module(module)
    except Exception as e:  # a task's own import-time error, reported as data
        raise TaskError(path, f"importing it raised {type(e).__name__}: {e}") from None
    finally:
        sys.modules.pop(module_name, None)
    return module


_swap = {"lock": threading.Lock(), "depth": 0, "stdout": None}


@contextlib.contextmanager
def _prints_to_stderr():
    """A task file's print() at import goes to stderr: this process's stdout may carry a
    `--json` answer or a protocol (MCP on stdio). Counted, so that threads importing at once
    put the real stdout back only when the last one is done. (The CLI also points file
    descriptor 1 at stderr while a command runs, for C-level output: cli/output.py.)"""
    with _swap["lock"]:
        if _swap["depth"] == 0:
            _swap["stdout"], sys.stdout = sys.stdout, sys.stderr
        _swap["depth"] += 1
    try:
        yield
    finally:
        with _swap["lock"]:
            _swap["depth"] -= 1
            if _swap["depth"] == 0:
                sys.stdout = _swap["stdout"]


def build(task: Task, shape: str | Shape, device: str | torch.device = "cpu",
          seed: int = 0) -> Instance:
    """Make the reference model and inputs for one shape, directly on `device`. The model is
    in the mode the task declares (MODE), else as constructed: KernelBench calls neither
    train() nor eval(), so its BatchNorm normalises by the batch's statistics."""
    module, shape = _shaped_module(task, shape)
    with _building(task, shape):
        model, init_inputs, mode = _model(task, module, device, seed)
        with torch.device(device):
            inputs = [_cast_floating(x, cast_dtype(module)) for x in module.get_inputs()]
    return Instance(model=model, inputs=inputs, init_inputs=init_inputs, mode=mode)


def build_model(task: Task, shape: str | Shape, device: str | torch.device = "cpu",
                seed: int = 0) -> torch.nn.Module:
    """The model `build` makes for the same shape and seed (the same constructor, the same
    random draws), without the inputs."""
    module, shape = _shaped_module(task, shape)
    with _building(task, shape):
        return _model(task, module, device, seed)[0]


def _model(task: Task, module: ModuleType, device, seed: int) -> tuple:
    """(model, init_inputs, mode): the RNG seeded, then the constructor's inputs and model."""
    mode = _mode(task.path, module)
    torch.manual_seed(seed)
    with torch.device(device):
        init_inputs = list(module.get_init_inputs())
        model = apply_mode(_cast_floating(module.Model(*init_inputs), cast_dtype(module)), mode)
    return model, init_inputs, mode


@contextlib.contextmanager
def _building(task: Task, shape: Shape):
    try:
        yield
    except TaskError:
        raise
    except Exception as e:
        raise TaskError(task.path, f"building shape {shape.name!r} raised "
                        f"{type(e).__name__}: {e}") from None


def apply_mode(model: torch.nn.Module, mode: str | None) -> torch.nn.Module:
    """`mode` None leaves the model as its constructor left it."""
    if mode is None:
        return model
    return model.train(mode == "train")


def make_inputs(task: Task, shape: str | Shape, device: str | torch.device = "cpu",
                seed: int = 0) -> list[Any]:
    """Only the forward inputs for one shape and seed (the model is built once per shape)."""
    module, shape = _shaped_module(task, shape)
    torch.manual_seed(seed)
    try:
        with torch.device(device):
            return [_cast_floating(x, cast_dtype(module)) for x in module.get_inputs()]
    except Exception as e:
        raise TaskError(task.path, f"get_inputs() for shape {shape.name!r} raised "
                        f"{type(e).__name__}: {e}") from None


def conversions(task: Task, shape: str | Shape) -> list[str]:
    """Every tensor whose dtype the task changes from the one its file gives it: only a
    declared DTYPE does (a constructor that cannot run on meta: its inputs alone)."""
    module, shape = _shaped_module(task, shape)
    cast = cast_dtype(module)
    if cast is None:
        return []
    with torch.random.fork_rng(devices=[]), _prints_to_stderr(), torch.device("meta"):
        named = [(f"input {i}", x) for i, x in enumerate(module.get_inputs())]
        with contextlib.suppress(Exception):
            model = module.Model(*module.get_init_inputs())
            named += [(f"parameter {n}", t) for n, t in model.named_parameters()]
            named += [(f"buffer {n}", t) for n, t in model.named_buffers()]
    return [f"{what}: the file makes {_dtype_name(x.dtype)}, it runs as "
            f"{_dtype_name(cast)} (the file's DTYPE)" for what, x in named
            if isinstance(x, torch.Tensor) and x.is_floating_point() and x.dtype != cast]


@contextlib.contextmanager
def tf32_policy(task: Task):
    """Strict fp32 unless the task allows TF32; restores the previous setting."""
    old = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = task.allow_tf32
    torch.backends.cudnn.allow_tf32 = task.allow_tf32
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = old


def cast_dtype(module: ModuleType) -> torch.dtype | None:
    """The dtype every floating tensor is cast to: the file's DTYPE; None where it declares
    none, and each tensor keeps the dtype the file gives it."""
    if getattr(module, "DTYPE", None) is None:
        return None
    return DTYPES[_dtype_name(module.DTYPE)]


COMPLEX_OF = {torch.float64: torch.complex128, torch.float32: torch.complex64}


def upcast(x, dtype: torch.dtype):
    """A model or tensor at a higher precision for the reference's exact copy: floating
    tensors in `dtype`, complex ones in the complex dtype of that precision (a RoPE
    frequency buffer). Module.to(torch.float64) keeps only a complex buffer's real part, and
    a copy that is no longer the reference widens the tolerance (K_REF × its error)."""
    if isinstance(x, torch.nn.Module):
        return x._apply(lambda t: upcast(t, dtype))
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.to(dtype)
    if isinstance(x, torch.Tensor) and x.is_complex() and dtype in COMPLEX_OF:
        return x.to(COMPLEX_OF[dtype])
    return x


def _cast_floating(x, dtype: torch.dtype | None):
    if dtype is None:
        return x
    if isinstance(x, torch.nn.Module):  # not Module.to(dtype): it casts complex buffers to
        return x._apply(lambda t: _cast_floating(t, dtype))  # real, dropping imaginary parts
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.to(dtype)
    return x


def _shaped_module(task: Task, shape: str | Shape) -> tuple[ModuleType, Shape]:
    """A fresh import of the task with the shape's constants set."""
    shape = task.shape(shape) if isinstance(shape, str) else shape
    module = import_task_module(task.path)
    _apply_shape(task, module, shape)
    return module, shape


def _apply_shape(task: Task, module: ModuleType, shape: Shape) -> None:
    for name, value in shape.values.items():
        if not hasattr(module, name):
            raise TaskError(task.path, f"shape {shape.name!r} sets {name}, "
                            "which the file does not define at module level")
        setattr(module, name, value)


def _description(path: Path, module: ModuleType) -> str:
    doc = (module.__doc__ or "").strip()
    if doc:
        return doc.splitlines()[0]
    return path.stem.replace("_", " ")


def _shapes(path: Path, module: ModuleType) -> tuple[Shape, ...]:
    declared = getattr(module, "SHAPES", None)
    if declared is None:
        return (Shape("default", {}),)
    if not isinstance(declared, dict) or not declared:
        raise TaskError(path, "SHAPES must be a non-empty dict {name: {CONSTANT: value}}")
    shapes = []
    for name, values in declared.items():
        if not isinstance(values, dict):
            raise TaskError(path, f"SHAPES[{name!r}] must be a dict of constants")
        missing = [k for k in values if not hasattr(module, k)]
        if missing:
            raise TaskError(path, f"SHAPES[{name!r}] sets {', '.join(missing)}, "
                            "which the file does not define at module level")
        shapes.append(Shape(str(name), dict(values)))
    return tuple(shapes)


def _dtype(path: Path, module: ModuleType) -> str:
    """The task's dtype: its DTYPE where declared, else the narrowest floating dtype among
    the tensors the file makes (the one its products run at on the roofline, and the one
    its reference's precision is set for)."""
    if getattr(module, "DTYPE", None) is None:
        return _narrowest(written_dtypes(module))
    dtype = _dtype_name(module.DTYPE)
    if dtype not in DTYPES:
        raise TaskError(path, f"DTYPE {dtype!r} is not one of {', '.join(DTYPES)}")
    return dtype


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.") if isinstance(dtype, torch.dtype) else dtype


def written_dtypes(module: ModuleType) -> list[torch.dtype]:
    """The dtypes of the inputs, then the parameters and buffers, as the file makes them at
    its own sizes, on the meta device (nothing allocated). A constructor that cannot run
    there (one that reads a value) gives the inputs' alone; inputs that cannot, none."""
    with torch.random.fork_rng(devices=[]), _prints_to_stderr(), torch.device("meta"):
        try:
            inputs = [x for x in module.get_inputs() if isinstance(x, torch.Tensor)]
        except Exception:  # the task's own code: build() reports it with its shape
            return []
        try:
            model = module.Model(*module.get_init_inputs())
            held = list(model.parameters()) + list(model.buffers())
        except Exception:
            held = []
    return [t.dtype for t in inputs + held]


def _narrowest(dtypes: list[torch.dtype]) -> str:
    """float32 where the file makes no floating tensor (its outputs' precision is moot)."""
    floating = [d for d in dtypes if d.is_floating_point]
    if not floating:
        return "float32"
    return str(min(floating, key=lambda d: d.itemsize)).removeprefix("torch.")


def _mode(path: Path, module: ModuleType) -> str | None:
    mode = getattr(module, "MODE", None)
    if mode is not None and mode not in MODES:
        raise TaskError(path, f"MODE {mode!r} is not one of {', '.join(map(repr, MODES))} "
                        "(leave it out to run the model as constructed, as KernelBench does)")
    return mode


def _tolerance(path: Path, module: ModuleType) -> dict[str, float] | None:
    tol = getattr(module, "TOLERANCE", None)
    if tol is None:
        return None
    if not isinstance(tol, dict) or not set(tol) <= {"rtol", "atol"}:
        raise TaskError(path, "TOLERANCE must be a dict with keys among rtol, atol")
    return {k: float(v) for k, v in tol.items()}
