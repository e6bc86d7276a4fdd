"""CUDA C++ candidates: find their kernel sources without running them, and compile them
with nvcc where it exists, so a machine without a GPU still reports compile errors."""

from __future__ import annotations

import ast
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import pyparse

# load_inline prepends these to cuda_sources (torch/utils/cpp_extension.py)
LOAD_INLINE_PREAMBLE = "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
COMPILE_TIMEOUT_S = 300


@dataclass(frozen=True)
class CudaSource:
    code: str
    uses_torch: bool  # load_inline sources see torch's headers; NVRTC sources do not


@dataclass(frozen=True)
class CompileResult:
    ok: bool
    log: str
    checked: bool  # False when no nvcc is present or nothing could be extracted


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


def compile_check(sources: list[CudaSource]) -> CompileResult:
    nvcc = shutil.which("nvcc")
    if nvcc is None or not sources:
        return CompileResult(ok=True, log="", checked=False)
    for src in sources:
        result = _nvcc(nvcc, src)
        if not result.ok:
            return result
    return CompileResult(ok=True, log="", checked=True)


def _nvcc(nvcc: str, src: CudaSource) -> CompileResult:
    with tempfile.TemporaryDirectory(prefix="warpsmith-nvcc-") as tmp:
        path = Path(tmp) / "candidate.cu"
        path.write_text((LOAD_INLINE_PREAMBLE if src.uses_torch else "") + src.code)
        cmd = [nvcc, "-c", "-std=c++20", "-arch=sm_90", "--expt-relaxed-constexpr",
               "-w", str(path), "-o", str(Path(tmp) / "candidate.o")]
        if src.uses_torch:
            cmd[1:1] = [f"-I{p}" for p in _torch_includes()]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return CompileResult(ok=False, log="nvcc timed out", checked=True)
    errors = [line for line in proc.stderr.splitlines() if "error" in line]
    return CompileResult(ok=proc.returncode == 0, log="\n".join(errors[:20]) or proc.stderr[-2000:],
                         checked=True)


def _torch_includes() -> list[str]:
    from torch.utils.cpp_extension import include_paths

    return include_paths()


def _string_constants(tree: ast.Module) -> dict[str, str]:
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found


def _strings(node, constants: dict[str, str]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
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
