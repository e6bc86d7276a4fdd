"""CUDA C++ candidates: find their kernel sources without running them, and compile them
with nvcc where it exists, so a machine without a GPU still reports compile errors.

A load_inline source sees what torch's own build gives it: torch's include folders, Python's
(torch/extension.h includes Python.h) and the macros load_inline defines. A check that takes
longer than its limit (torch's headers alone take minutes on a small machine) proves
nothing either way: it is reported as not checked, never as a compile error.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import pyparse

# load_inline prepends these to cuda_sources (torch/utils/cpp_extension.py)
LOAD_INLINE_PREAMBLE = "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
COMPILE_TIMEOUT_S = 300
# what load_inline's build defines (torch/utils/cpp_extension.py); PYBIND11_MODULE in a
# cuda_sources string needs the extension's name
LOAD_INLINE_DEFINES = ("-DTORCH_EXTENSION_NAME=warpsmith_check", "-DTORCH_API_INCLUDE_EXTENSION_H")


@dataclass(frozen=True)
class CudaSource:
    code: str
    uses_torch: bool  # load_inline sources see torch's headers; NVRTC sources do not


@dataclass(frozen=True)
class CompileResult:
    ok: bool
    log: str
    checked: bool  # False when no nvcc is present, nothing could be extracted, or too slow
    note: str = ""  # why a present nvcc checked nothing (the limit was reached)


def extract_sources(source: str) -> list[CudaSource]:
    """String literals passed as `cuda_sources=` to load_inline, or as the code of a CuPy
    RawKernel/RawModule or to torch.cuda._compile_kernel (NVRTC), resolving module-level names
    bound to string constants."""
    tree = pyparse.parse(source)
    constants = _string_constants(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node)
        if name.endswith("load_inline"):
            value = next((k.value for k in node.keywords if k.arg == "cuda_sources"), None)
            found += [CudaSource(s, True) for s in _strings(value, constants)]
        elif name.endswith(("RawKernel", "RawModule", "compile_kernel")) and node.args:
            found += [CudaSource(s, False) for s in _strings(node.args[0], constants)]
    return found


def compile_check(sources: list[CudaSource], with_torch: bool = True) -> CompileResult:
    """nvcc, compile only. `with_torch` False: a source that includes torch's headers is
    not compiled (they take most of a minute), and the result says so."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return CompileResult(ok=True, log="", checked=False,
                             note="no nvcc here, so the CUDA source was not compile-checked")
    if not sources:
        return CompileResult(ok=True, log="", checked=False, note=(
            "no CUDA source could be read from the file without running it (one built at "
            "run time), so nvcc checked nothing"))
    if not with_torch and any(src.uses_torch for src in sources):
        return CompileResult(ok=True, log="", checked=False, note=(
            "the quick profile does not compile-check a source that includes torch's headers "
            "(nvcc spends most of a minute on them); --profile thorough does"))
    for src in sources:
        result = _nvcc(nvcc, src)
        if not result.ok or result.note:
            return result
    return CompileResult(ok=True, log="", checked=True)


def _nvcc(nvcc: str, src: CudaSource) -> CompileResult:
    with tempfile.TemporaryDirectory(prefix="warpsmith-nvcc-") as tmp:
        path = Path(tmp) / "candidate.cu"
        path.write_text((LOAD_INLINE_PREAMBLE if src.uses_torch else "") + src.code)
        cmd = [nvcc, "-c", "-std=c++17", "-arch=sm_90", "--expt-relaxed-constexpr",
               "-w", str(path), "-o", str(Path(tmp) / "candidate.o")]
        if src.uses_torch:
            cmd[1:1] = [f"-I{p}" for p in torch_includes()] + list(_torch_defines())
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return CompileResult(ok=True, log="", checked=False, note=(
                f"the compile-only nvcc check did not finish within {COMPILE_TIMEOUT_S} s on "
                "this machine, so it proves nothing either way"))
    errors = [line for line in proc.stderr.splitlines() if "error" in line]
    return CompileResult(ok=proc.returncode == 0, log="\n".join(errors[:20]) or proc.stderr[-2000:],
                         checked=True)


def torch_includes() -> list[str]:
    """torch's header folders and Python's, as torch.utils.cpp_extension builds with."""
    from torch.utils.cpp_extension import include_paths

    return [*include_paths(), sysconfig.get_paths()["include"]]


def _torch_defines() -> tuple[str, ...]:
    import torch

    abi = int(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True))
    return (*LOAD_INLINE_DEFINES, f"-D_GLIBCXX_USE_CXX11_ABI={abi}")


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level names bound to strings (f-strings of such names too: `TILE = 16`,
    `SRC = f"...{TILE}..."`, as LLM kernels write them) or to numbers, as text."""
    found: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str | int | float) \
                and not isinstance(value.value, bool):
            text = str(value.value)
        else:
            text = _formatted(value, found)
            if text is None:
                continue
        for target in node.targets:
            if isinstance(target, ast.Name):
                found[target.id] = text
    return found


def _formatted(node, constants: dict[str, str]) -> str | None:
    """An f-string whose every field is a bare module constant, rendered; else None."""
    if not isinstance(node, ast.JoinedStr):
        return None
    parts = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            parts.append(str(part.value))
        elif isinstance(part, ast.FormattedValue) and part.format_spec is None and \
                part.conversion == -1 and isinstance(part.value, ast.Name) and \
                part.value.id in constants:
            parts.append(constants[part.value.id])
        else:
            return None
    return "".join(parts)


def _strings(node, constants: dict[str, str]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if (text := _formatted(node, constants)) is not None:
        return [text]
    if isinstance(node, ast.Name) and node.id in constants:
        return [constants[node.id]]
    if isinstance(node, ast.List | ast.Tuple):
        return [s for elt in node.elts for s in _strings(elt, constants)]
    return []


def _call_name(node: ast.Call) -> str:
    func = node.func
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))
