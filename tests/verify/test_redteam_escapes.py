"""The second round's static rules (verify/static/escapes.py), one source fragment each, and the
runtime's global-state check; the red-team files of the same classes run in test_corpora.py."""

import pytest
import torch

from warpsmith.verify import static
from warpsmith.verify.child import integrity

KERNEL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + tl.arange(0, BLOCK)))


class ModelNew(nn.Module):
    def forward(self, x):
        k[(1,)](x, x.numel(), BLOCK=16)
        return x
'''


def _rules(fragment: str) -> set[str]:
    return {f.rule for f in static.scan(KERNEL + fragment).rejected}


@pytest.mark.parametrize("fragment, rule", [
    ("match torch:\n    case object(sys=s):\n        pass\n", "class-pattern"),
    ("import functools\nsd = functools.singledispatch\n", "string-eval"),
    ("from functools import singledispatchmethod as m\n", "string-eval"),
    ("S = torch.save\n", "file-io"),
    ("import torch.fx\ng = torch.fx.Graph()\n", "code-generation"),
    ("import torch.nn.functional as F\nh = F.has_torch_function_unary\n", "guard-probe"),
    ("from torch.functional import has_torch_function as h\n", "guard-probe"),
    ("h = torch.autograd.has_torch_function\n", "guard-probe"),
    ("import triton.language as tl2\nf = tl2.str_to_ty\n", "string-eval"),
    ("from torch import fx as f\n", "code-generation"),
    ("T = torch.fx.symbolic_trace\n", "code-generation"),
    ("import torch.ao.quantization.quantize_fx as q\n", "code-generation"),
    ("P = torch.ao.quantization\n", "code-generation"),
    ("D = dict(__iter__=1)\nN = {'__iter__': len}\n", "dunder-method"),
    ("from torch.serialization import load as L\n", "file-io"),
    ("from torch.utils.cpp_extension import load_inline\n", "native-code"),
    ("import torch.utils.cpp_extension as ce\n", "native-code"),
    ("from torch.utils.collect_env import run\n", "native-code"),
    ("from triton.runtime.build import compile_module_from_src as c\n", "native-code"),
    ("A = torch.cuda.CUDAPluggableAllocator\n", "native-code"),
    ("torch.backends.cudnn.set_flags(False)\n", "global-state"),
    ("b = torch.backends.cuda\nb.enable_flash_sdp(False)\n", "global-state"),
    ("torch.set_grad_enabled(True)\n", "global-state"),
    ("f = torch.set_deterministic_debug_mode\n", "global-state"),
    ("torch.set_float32_matmul_precision('medium')\n", "global-state"),
    ("def h(v):\n    return v.handle.data\n", "interpreter-internals"),
])
def test_each_escape_is_rejected(fragment, rule):
    assert rule in _rules(fragment)


@pytest.mark.parametrize("fragment", [
    "tf32 = torch.backends.cuda.matmul.allow_tf32\n",
    "ok = torch.backends.cudnn.is_available()\n",
    "def f(x):\n    with torch.no_grad():\n        return x\n",
    "match 3:\n    case 3:\n        pass\n",
    "def f(x: 'torch.Tensor') -> 'torch.Tensor':\n    return x\n",
])
def test_honest_idioms_are_not_rejected(fragment):
    assert _rules(fragment) == set()


def test_a_cuda_candidate_may_build_with_load_inline():
    source = ("from torch.utils.cpp_extension import load_inline\n"
              "import torch.nn as nn\n"
              "SRC = '__global__ void k(float* x) {}'\n"
              "mod = load_inline(name='m', cpp_sources='', cuda_sources=SRC)\n"
              "class ModelNew(nn.Module):\n"
              "    def forward(self, x):\n"
              "        return mod.k(x)\n")
    assert "native-code" not in {f.rule for f in static.scan(source).rejected}


def test_changed_torch_state_is_named_and_the_fill_may_be_skipped():
    before = integrity.knobs()
    precision = torch.get_float32_matmul_precision()
    try:
        torch.set_float32_matmul_precision("medium" if precision != "medium" else "high")
        torch.use_deterministic_algorithms(True, warn_only=True)
        changed = integrity.knobs_changed(before, skip=("deterministic",))
        assert "torch state float32_matmul_precision" in changed
        assert "torch state deterministic" not in changed
    finally:
        torch.set_float32_matmul_precision(precision)
        torch.use_deterministic_algorithms(False)
    assert integrity.knobs_changed(before) == []
