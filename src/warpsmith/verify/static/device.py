"""Whether a candidate's host code asks which platform it runs on (E50).

The CPU interpreter runs the candidate's code for CPU tensors only: whatever a branch on the
device does for GPU tensors is never run there. A kernel that falls back to PyTorch off the
GPU (`if not x.is_cuda: return torch.relu(x)`) is honest and merely unjudgeable on the CPU;
one that launches half its grid when `x.device.type == "cuda"` passed on the CPU with a GPU
path nobody had checked. Either way the CPU verdict says nothing about the GPU path, so the
pipeline makes it `needs_gpu` (a GPU judges it), never `passed`.

The ways to ask are many; this finds the ones host code writes: the device flags of a tensor
(`is_cuda`, `is_cpu`, `get_device()`), a device's `type` or `index` (through any name it was
bound to), a device compared, stringified or used as a key, the device strings "cuda" and
"cpu" outside a `device=` argument, and torch.cuda's and Triton's questions about the
machine (`torch.cuda.is_available()`, the interpreter's flag). It cannot see a kernel that
tells the platforms apart by its own numerics (the interpreter's bf16 casts truncate): the
CPU interpreter is a development path, not a judge of GPU code (docs/verifier.md).
"""

from __future__ import annotations

import ast

from ... import pyparse
from .base import triton_kernels
from .lookup import bindings, paths_of

FLAGS = {"is_cuda", "is_cpu", "is_xpu", "is_mps", "is_meta", "get_device", "is_pinned"}
DEVICE_PARTS = {"type", "index"}
# torch.cuda's questions about the machine, and Triton's about its backend
MACHINE = ("torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.current_device",
           "torch.cuda.is_initialized", "torch.cuda.get_device_name",
           "torch.cuda.get_device_capability", "torch.backends.cuda.is_built",
           "triton.runtime.driver", "triton.knobs", "triton.runtime.interpreter",
           "torch.accelerator", "torch.version.cuda", "torch.version.hip")
DEVICE_WORDS = ("cuda", "cpu", "hip", "xpu", "mps", "meta")


def queries_device(source: str) -> bool:
    try:
        tree = pyparse.parse(source)
    except SyntaxError:
        return False
    in_kernel = {id(n) for k in triton_kernels(tree) for n in ast.walk(k)}
    names = bindings(tree)
    devices = _device_names(tree)

    def is_device(e: ast.AST) -> bool:
        return isinstance(e, ast.Attribute) and e.attr == "device" or \
            isinstance(e, ast.Name) and e.id in devices or \
            isinstance(e, ast.Call) and any(p.endswith("torch.device")
                                            for p in paths_of(e.func, names))

    allowed_strings = _device_arguments(tree)
    for n in ast.walk(tree):
        if id(n) in in_kernel:
            continue
        if isinstance(n, ast.Attribute) and (
                n.attr in FLAGS or n.attr in DEVICE_PARTS and is_device(n.value)
                or any(p == m or p.startswith(m + ".") for p in paths_of(n, names)
                       for m in MACHINE)):
            return True
        if isinstance(n, ast.Compare) and any(map(is_device, [n.left, *n.comparators])):
            return True
        if isinstance(n, ast.FormattedValue) and is_device(n.value):
            return True
        if isinstance(n, ast.Subscript) and is_device(n.slice):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id in ("str", "repr", "format", "hash") and any(map(is_device, n.args)):
            return True
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and \
                id(n) not in allowed_strings and _device_word(n.value):
            return True
    return False


def _device_word(text: str) -> bool:
    word = text.strip().lower()
    return any(word == w or word.startswith(w + ":") for w in DEVICE_WORDS)


def _device_names(tree: ast.Module) -> set[str]:
    """Names bound (anywhere) to a `.device` or a function's parameter named like one."""
    found = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign | ast.AnnAssign | ast.NamedExpr) and n.value is not None \
                and any(isinstance(v, ast.Attribute) and v.attr == "device"
                        for v in ast.walk(n.value)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            found |= {t.id for target in targets for t in ast.walk(target)
                      if isinstance(t, ast.Name)}
        if isinstance(n, ast.arg) and "device" in n.arg.lower():
            found.add(n.arg)
    return found


def _device_arguments(tree: ast.Module) -> set[int]:
    """Device strings passed on, not compared: `device="cuda"`, `.to("cuda")`, `.cuda()`'s."""
    ids = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.keyword) and n.arg == "device":
            ids.add(id(n.value))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in ("to", "device", "empty", "zeros", "ones", "full"):
            ids |= {id(a) for a in n.args}
    return ids
