"""Static rules on small sources: each fires where it should and stays quiet on honest code."""

import pytest

from warpsmith.verify.static import scan

HONEST = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pass


class ModelNew(nn.Module):
    def forward(self, x):
        k[(1,)](x, x.numel(), BLOCK=16)
        return x
'''


def test_honest_source_has_no_findings():
    result = scan(HONEST)
    assert result.language == "triton" and result.findings == ()


@pytest.mark.parametrize("snippet, rule", [
    ("import threading", "import-not-allowed"),
    ("from multiprocessing import Pool", "import-not-allowed"),
    ("import os", "import-not-allowed"),
    ("import numpy as np", "import-not-allowed"),
    ("from sys import modules", "import-not-allowed"),
    ("import torch.utils._python_dispatch", "import-not-allowed"),
    ("import warpsmith.verify", "import-not-allowed"),
    ("x = eval('1')", "dynamic-code"),
    ("f = open('/etc/passwd')", "dynamic-code"),
    ("m = __builtins__['__import__']('os')", "dynamic-code"),
    ("a = getattr(torch, 'rel' + 'u')", "dynamic-code"),
    ("T = type('T', (torch.Tensor,), {})", "dynamic-code"),
    ("torch.allclose = lambda *a, **k: True", "monkeypatch"),
    ("import torch as _t\n_t.equal = lambda a, b: True", "monkeypatch"),
    ("import math\nmath.fsum = sum", "monkeypatch"),
    ("type.__setattr__(torch, 'equal', None)", "introspection"),
    ("g = (lambda: 0).__globals__", "introspection"),
    ("def f(frame):\n    return frame.f_back", "introspection"),
    ("d = torch.utils._python_dispatch", "private-api"),
    ("torch.use_deterministic_algorithms(False)", "forbidden-call"),
    ("torch.save(torch.zeros(1), 'x.pt')", "forbidden-call"),
    ("v = torch.zeros(3).numpy()", "forbidden-call"),
    ("torch.manual_seed(0)", "forbidden-call"),
    ("m = Model()", "reference-lookup"),
    ("class Fake(torch.Tensor):\n    pass", "tensor-subclass"),
    ("try:\n    pass\nexcept Exception:\n    pass", "try-except"),
])
def test_rule_fires(snippet, rule):
    result = scan(HONEST + "\n" + snippet + "\n")
    assert rule in {f.rule for f in result.rejected}, result.findings


@pytest.mark.parametrize("snippet, rule", [
    ("CACHE = {}", "module-cache"),
    ("s = torch.cuda.Stream()", "streams-graphs"),
])
def test_warnings_do_not_reject(snippet, rule):
    result = scan(HONEST + "\n" + snippet + "\n")
    assert rule in {f.rule for f in result.warnings} and not result.rejected


def test_modelnew_must_subclass_nn_module_only():
    result = scan(HONEST.replace("class ModelNew(nn.Module)", "class ModelNew(Base)"))
    assert "modelnew-base" in {f.rule for f in result.rejected}


def test_triton_load_is_not_torch_load():
    assert not scan(HONEST.replace("pass\n\n\nclass", "x = tl.load(x_ptr)\n\n\nclass")).rejected


def test_no_kernel_and_never_launched():
    torch_only = "import torch.nn as nn\nclass ModelNew(nn.Module):\n    pass\n"
    assert {f.rule for f in scan(torch_only).rejected} == {"no-kernel"}
    unlaunched = HONEST.replace("k[(1,)](x, x.numel(), BLOCK=16)", "pass")
    assert "kernel-never-launched" in {f.rule for f in scan(unlaunched).rejected}


def test_cuda_source_is_detected():
    src = ('from torch.utils.cpp_extension import load_inline\n'
           'src = "__global__ void k(float* x) {}"\n'
           'ext = load_inline(name="e", cpp_sources="", cuda_sources=src)\n'
           'class ModelNew:\n    pass\n')
    assert scan(src).language == "cuda"


def test_syntax_error_is_reported_not_raised():
    result = scan("def broken(:\n")
    assert result.syntax_error.startswith("line 1")


# Issue 16: each snippet reaches the OS, the harness or the host's compute through an allowed
# module, an alias or code that runs outside forward's guard.
@pytest.mark.parametrize("snippet, rule", [
    ("torch.os.system('id')", "module-reach"),
    ("s = torch.sys.modules", "module-reach"),
    ("t = torch.threading.Thread", "module-reach"),
    ("import typing\nf = typing.sys._getframe", "module-reach"),
    ("import dataclasses\nm = dataclasses.sys.modules", "module-reach"),
    ("import enum\nf = enum.sys._getframe(0)", "module-reach"),
    ("import torch.nn.functional as F\na = F.np.tanh", "module-reach"),
    ("m = torch.nn.modules.module.inspect.sys", "module-reach"),
    ("w = torch.nn.modules.module.weakref", "module-reach"),
    ("from torch import ctypes", "module-reach"),
    ("from torch.nn.modules import module as mm\nx = mm.inspect", "module-reach"),
    ("T = torch\nT.os.fork()", "module-reach"),
    ("def f(t=torch):\n    return t.os.getpid()", "module-reach"),
    ("import operator\ng = operator.attrgetter('o' + 's')", "attribute-by-string"),
    ("from operator import methodcaller", "attribute-by-string"),
    ("import functools\nf = functools.reduce(getattr, ['os'], torch)", "attribute-by-string"),
    ("g = getattr\n", "attribute-by-string"),
    ("import typing\nh = typing.get_type_hints", "attribute-by-string"),
    ("b = bytes(torch.zeros(2).untyped_storage())", "attribute-by-string"),
    ("b = memoryview", "attribute-by-string"),
    ("x = torch.Tensor.tolist", "host-data"),
    ("y = torch.Tensor.apply_(torch.zeros(2), float)", "host-data"),
    ("y = torch.zeros(2).map_(torch.zeros(2), max)", "host-data"),
    ("s = torch.zeros(2).untyped_storage()", "host-data"),
    ("torch.set_printoptions(precision=10)", "host-data"),
    ("lib = torch.library.Library('mylib', 'DEF')", "custom-op"),
    ("from torch.library import custom_op", "custom-op"),
    ("torch.ops.load_library('x.so')", "custom-op"),
    ("torch.ops.aten.relu.default.py_impl(1)", "custom-op"),
    ("import torch.library", "import-not-allowed"),
    ("import torch.utils.data", "import-not-allowed"),
    ("class R(tuple):\n    def __iter__(self):\n        return iter(())", "dunder-method"),
    ("class H:\n    def __repr__(self):\n        return ''", "dunder-method"),
    ("class H:\n    __torch_function__ = classmethod(lambda *a: 0)", "dunder-method"),
    ("class H:\n    def __del__(self):\n        pass", "dunder-method"),
    ("def __getattr__(name):\n    return 0", "dunder-method"),
    ("class R(dict):\n    def values(self):\n        return []", "container-subclass"),
    ("import collections\nclass R(collections.OrderedDict):\n    def keys(self):\n"
     "        return []", "container-subclass"),
    ("import typing\nclass R(typing.NamedTuple):\n    a: int\n    def _asdict(self):\n"
     "        return {}", "container-subclass"),
    ("T = torch.Tensor\nT.clone = lambda self: self", "monkeypatch"),
    ("type(torch.zeros(1)).clone = lambda self: self", "monkeypatch"),
    ("del torch.Tensor.clone", "monkeypatch"),
    ("for T in (torch.Tensor,):\n    T.clone = None", "monkeypatch"),
    ("def get():\n    return torch.Tensor\nget().clone = None", "monkeypatch"),
    ("from torch import Tensor as T\nT.copy_ = None", "monkeypatch"),
    ("P = torch.nn.Parameter\nclass Lazy(P):\n    pass", "tensor-subclass"),
    ("class Lazy(type(torch.zeros(1))):\n    pass", "tensor-subclass"),
    ("from torch import _C", "private-api"),
    ("from torch.utils import _pytree", "private-api"),
    ("import torch.nn.init as init\nf = init._calculate_fan_in_and_fan_out.__globals__",
     "introspection"),
])
def test_issue16_rule_fires(snippet, rule):
    result = scan(HONEST + "\n" + snippet + "\n")
    assert rule in {f.rule for f in result.rejected}, result.findings


# Honest idioms: initialisation helpers real LLM kernels call, and names that only look alike.
@pytest.mark.parametrize("snippet", [
    "import torch.nn as nn\nfan_in, _ = nn.init._calculate_fan_in_and_fan_out(torch.empty(3, 4))",
    "from torch.nn.modules.utils import _pair\nk = _pair(3)",
    "import math\nb = 1 / math.sqrt(4)",
    "import typing\nclass Cfg(typing.NamedTuple):\n    block: int = 128",
    "import collections\nPair = collections.namedtuple('Pair', 'a b')",
    "class Out:\n    def __init__(self, x):\n        self.x = x",
    "dtype = torch.float32\nx = torch.zeros(2, dtype=dtype)\nx[0] = 1.0",
    "import functools\n@functools.lru_cache\ndef f(n):\n    return n",
    "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.act = torch.relu\n        self.w = nn.Parameter(torch.ones(2))",
    "SRC = f'#define N {4}'",
])
def test_issue16_honest_idioms_pass(snippet):
    result = scan(HONEST + "\n" + snippet + "\n")
    assert not result.rejected, result.findings


TF32 = '''
import triton
import triton.language as tl
from triton.language import dot


@triton.jit
def mm(a_ptr, b_ptr, c_ptr):
    a = tl.load(a_ptr)
    b = tl.load(b_ptr)
    c = tl.dot(a, b)
    c += tl.dot(a, b, input_precision="ieee")
    c += tl.dot(a, b, allow_tf32=False)
    c += dot(a, b, input_precision="tf32")
    c += tl.dot(a, b, None, "ieee")
    c += tl.dot(a, b, input_precision="tf32x3")  # about fp32's accuracy: the GPU judges it
    c += a @ b
    tl.store(c_ptr, c)
'''


def test_tf32_dots_flags_each_dot_a_gpu_runs_in_tf32():
    from warpsmith.verify.static import tf32_dots

    lines = TF32.splitlines()
    flagged = [lines[f.line - 1].strip() for f in tf32_dots(TF32)]
    assert flagged == ["c = tl.dot(a, b)", 'c += dot(a, b, input_precision="tf32")',
                       "c += a @ b"]
    assert {f.rule for f in tf32_dots(TF32)} == {"tf32-dot"}
    assert tf32_dots("def broken(:\n") == []


def test_a_read_modify_write_is_flagged_whatever_the_spelling_of_its_address():
    """Red-team round of 2026-12-05: `tl.load(out_ptr + row)` then `tl.store(row + out_ptr)`
    were two texts and no warning; an alias of the address is followed too."""
    kernel = '''
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * BLOCK + tl.arange(0, BLOCK))
    p = row + out_ptr
    acc = tl.load(out_ptr + row)
    tl.store(p, acc + tl.sum(x, axis=0))
'''
    from warpsmith.verify import static

    assert [w.rule for w in static.scan(kernel).warnings] == ["cross-program-rmw"]
    vector = kernel.replace("p = row + out_ptr", "p = out_ptr + tl.arange(0, BLOCK)")
    assert "cross-program-rmw" not in [w.rule for w in static.scan(vector).warnings]


def test_a_name_the_file_never_defines_is_refused():
    """E66: a name that exists only because something wrote it into the module at run time
    (the interpreter's `inspect`); `global` binds nothing, a star import binds its names."""
    from warpsmith.verify import static

    assert any(f.rule == "undefined-name" for f in static.scan("x = inspect\n").rejected)
    assert any(f.rule == "undefined-name"
               for f in static.scan("def f():\n    global np\n    return np\n").rejected)
    star = "from math import *\nclass ModelNew:\n    pass\ny = sqrt(2)\n"
    assert not any(f.rule == "undefined-name" for f in static.scan(star).rejected)
