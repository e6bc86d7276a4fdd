"""The worker's compile audit hook (verify/child/codewatch.py, E29): code compiled from a
string by a library (fx's codegen, triton's str_to_ty) is refused before it runs; the import
system, ast.parse, namedtuple and dataclasses are not. An audit hook cannot be removed, so
each case runs in a process of its own."""

import os
import subprocess
import sys

import pytest

PRELUDE = ("from warpsmith.verify.child import codewatch\n"
           "found = codewatch.install()\n")


def _run(body: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PRELUDE + body], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("body", [
    "import collections\ncollections.namedtuple('P', 'a b')\n",
    "import dataclasses\n@dataclasses.dataclass\nclass D:\n    a: int\nD(1)\n",
    "import ast\nast.parse('x = 1')\n",
    "import json, decimal, fractions\n",
])
def test_the_generators_that_write_from_identifiers_are_allowed(body):
    done = _run(body + "assert found == [], found\nprint('ok')\n")
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


@pytest.mark.parametrize("body", [
    "import triton.language as tl\n"
    "tl.str_to_ty('tensordesc' + chr(60) + 'fp32[16],print(7)' + chr(62), None)\n",
    "eval('1 + 1')\n",
])
def test_code_compiled_from_a_string_is_refused_before_it_runs(body):
    done = _run(body)
    assert "DynamicCode" in done.stderr and "\n7\n" not in "\n" + done.stdout, done.stderr


def test_a_load_inline_candidate_s_import_is_warmed_before_the_watch_on_a_gpu():
    """torch.utils.cpp_extension (every CUDA C++ candidate's load_inline) imports setuptools,
    which evaluates string annotations through typing: under the watch alone that import is
    refused, so the worker makes it before the watch on a GPU (worker._warm_guard)."""
    cold = _run("import torch.utils.cpp_extension\n")
    assert "DynamicCode" in cold.stderr, cold.stderr[-2000:]  # what the warm-up is for
    warm = subprocess.run([sys.executable, "-c", (
        "from warpsmith.verify.child import worker\nworker._warm_guard('cuda')\n" + PRELUDE +
        "import torch.utils.cpp_extension\nassert found == [], found\nprint('ok')\n")],
        capture_output=True, text=True, timeout=120)
    assert warm.stdout.strip() == "ok", warm.stderr[-2000:]


LIAR = "class Name(str):\n    def isidentifier(self):\n        return True\n"


@pytest.mark.parametrize("body", [
    # a str subclass whose isidentifier lies: make_dataclass's only check of a name (E52)
    LIAR + "import dataclasses\n"
    "dataclasses.make_dataclass('P', [(Name('box,print(7)'), int)], init=False, repr=False)\n",
    # an exact str that is no identifier, written into a class body's annotations (E52)
    "import dataclasses\n@dataclasses.dataclass(init=False, repr=False)\nclass P:\n"
    "    a: int\n    __annotations__['a,print(7)'] = int\n",
])
def test_a_generator_fed_a_name_that_is_no_identifier_is_refused(body):
    done = _run(body)
    assert "DynamicCode" in done.stderr and "not a plain identifier" in done.stderr, \
        done.stderr[-2000:]


def test_a_str_enum_namedtuple_default_and_a_module_level_field_are_allowed():
    """Neither is pasted: a NamedTuple's str-enum default sat on namedtuple's frames, and an
    unnamed Field in the module's namespace (dataclasses' `globals`) failed every dataclass."""
    done = _run("import dataclasses, enum, typing\nclass Act(str, enum.Enum):\n"
                "    RELU = 'relu'\nclass Config(typing.NamedTuple):\n    act: Act = Act.RELU\n"
                "SHARED = dataclasses.field(default=256)\n@dataclasses.dataclass\nclass D:\n"
                "    a: int = 1\nD()\nassert found == [], found\nprint('ok')\n")
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_honest_dataclasses_with_str_enum_values_are_allowed():
    done = _run("import dataclasses, enum\nclass M(str, enum.Enum):\n    A = 'a'\n"
                "@dataclasses.dataclass(frozen=True, order=True)\nclass D:\n    m: M = M.A\n"
                "    n: list = dataclasses.field(default_factory=list)\n"
                "D() == D()\nassert found == [], found\nprint('ok')\n")
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_the_working_folder_leaves_the_import_path(tmp_path):
    """A module the candidate wrote into its working folder is not importable (E53)."""
    (tmp_path / "planted_module.py").write_text("print('ran')\n")
    done = subprocess.run([sys.executable, "-c", PRELUDE + "import planted_module\n"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "ModuleNotFoundError" in done.stderr and "ran" not in done.stdout, done.stderr


GPU_PATH = """
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import make_backend
from triton.runtime.jit import create_function_from_signature

@triton.jit
def scale(x_ptr, y_ptr, n, s: tl.float32, BLOCK: tl.constexpr = 128):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n) * s, mask=i < n)

target = GPUTarget("cuda", 90, 32)
create_function_from_signature(scale.signature, scale.params, make_backend(target))
source = triton.compiler.ASTSource(fn=scale, constexprs={"BLOCK": 128}, signature={
    "x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "s": "fp32"})
assert "cubin" in triton.compile(source, target=target).asm
assert found == [], found
print("ok")
"""


def test_triton_s_gpu_path_runs_under_the_watch(tmp_path):
    """What every Triton candidate does on a GPU, short of the launch: the argument binder
    Triton execs (its frames opened for names that lie) and the compile to an sm_90 cubin
    through ptxas, which needs no GPU. Neither may be refused."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    script = tmp_path / "gpu_path.py"  # @triton.jit reads its source from a file
    script.write_text(PRELUDE + GPU_PATH)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, env=env, cwd=tmp_path)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
