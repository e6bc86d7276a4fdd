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
