"""Issue 31's scan rules (verify/static/escapes.py), one fragment each, and what they leave
alone; the red-team files of the same classes (E57-E59) run in test_corpora.py."""

import pytest

from warpsmith.verify import static

from .test_redteam_escapes import KERNEL


def _rules(fragment: str) -> set[str]:
    return {f.rule for f in static.scan(KERNEL + fragment).rejected}


@pytest.mark.parametrize("fragment, rule", [
    ("g = torch.ExcludeDispatchKeyGuard\n", "mode-switch"),
    ("with torch.DisableTorchFunction():\n    pass\n", "mode-switch"),
    ("from torch import DisableTorchFunctionSubclass as D\n", "mode-switch"),
    ("K = torch.DispatchKeySet\n", "mode-switch"),
    ("import torch.types as tt\nk = tt.DispatchKey.Python\n", "mode-switch"),
    ("G = (lambda m: m)(torch).ExcludeDispatchKeyGuard\n", "expression-reach"),
    ("s = (lambda m: m)(torch).sys\n", "expression-reach"),
    ("s = max([torch], key=id).sys\n", "expression-reach"),
    ("def f(m):\n    return m.os.environ\n", "expression-reach"),
    ("C = (lambda m: m)(torch)._C\n", "expression-reach"),
    ("t = [dataclasses][0]._thread\nimport dataclasses\n", "expression-reach"),
    ("def g():\n    yield 1\nc = g().gi_code\n", "code-object"),
    ("def g(c):\n    return c.replace(co_names=('x',))\n", "code-object"),
    ("def f():\n    pass\nF = type(f)\nh = F(None, {})\n", "run-time-type"),
    ("def f():\n    pass\nh = type(f)(None, {})\n", "run-time-type"),
    ("M = type(type)\nT = M('T', (torch.Tensor,), {})\n", "run-time-type"),
    ("import dataclasses\nT = dataclasses.make_dataclass('T', [], bases=(torch.Tensor,))\n",
     "run-time-type"),
    ("from dataclasses import make_dataclass as md\nkw = {}\nT = md('T', [], **kw)\n",
     "run-time-type"),
    ("import enum\nE = enum.Enum('E', 'a b', type=torch.Tensor)\n", "run-time-type"),
])
def test_rule_fires(fragment, rule):
    assert rule in _rules(fragment)


@pytest.mark.parametrize("fragment", [
    "import dataclasses\nP = dataclasses.make_dataclass('P', ['a', 'b'])\n",
    "import enum\nE = enum.Enum('E', 'a b')\n",
    "def f(x):\n    return x.data.shape, x.T, x.mT\n",
    "def f(x):\n    return type(x) is torch.Tensor\n",
    "s = 'a-b'.replace('-', '_')\n",
    "n = torch.empty(3).dtype.itemsize\n",
    "with torch.no_grad():\n    pass\n",
    "with torch.inference_mode():\n    pass\n",
])
def test_honest_fragments_stay_quiet(fragment):
    assert _rules(fragment) == set()


TRITON_RULES = [
    ("@triton.jit\ndef k2(a, n):\n    tl.store(n.to(tl.pointer_type(tl.float32)), 1.0)\n",
     "pointer-cast"),
    ("@triton.jit\ndef k2(a, n):\n    tl.store(tl.cast(n, tl.core.pointer_type(tl.int8)), 1)\n",
     "pointer-cast"),
    ("@triton.jit\ndef k2(x_ptr, a):\n    p = a.to(x_ptr.dtype, bitcast=True)\n", "pointer-cast"),
    ("@triton.jit\ndef k2(a, n):\n    y = tl.inline_asm_elementwise('mov.b32 $0, $1;', '=r,r',"
     " [n], dtype=tl.int32, is_pure=True, pack=1)\n", "pointer-cast"),
    ("s = '{0.handle.data}'.format(1)\n", "format-field"),
    ("s = '{0[0]}{1}'.format([1], 2)\n", "format-field"),
    ("s = '{a.b}'.format_map({})\n", "format-field"),
    ("t = 'a' + '{}'\ns = t.format(1)\n", "format-field"),
    ("f = str.format\n", "format-field"),
]


@pytest.mark.parametrize("fragment, rule", TRITON_RULES)
def test_triton_rule_fires(fragment, rule):
    assert rule in _rules(fragment)


RMW = '''
@triton.jit
def partial(acc_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = pid // 4
    offs = tl.arange(0, BLOCK)
    part = tl.sum(tl.load(x_ptr + offs))
    tl.store(acc_ptr + row, tl.load(acc_ptr + row) + part)
'''
IN_PLACE = '''
@triton.jit
def twice(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2, mask=offs < n)
    tl.atomic_add(x_ptr, 1.0)
'''


def test_a_scalar_read_modify_write_is_flagged_for_a_gpu_never_rejected():
    found = static.scan(KERNEL + RMW)
    assert [f.rule for f in found.warnings] == ["cross-program-rmw"] and not found.rejected
    assert static.scan(KERNEL + IN_PLACE).findings == ()


@pytest.mark.parametrize("fragment", [
    "@triton.jit\ndef k2(x_ptr, y_ptr):\n    tl.store(y_ptr, tl.load(x_ptr).to("
    "y_ptr.dtype.element_ty))\n",
    "s = 'n={} m={:d} {name!r:>4}'.format(1, 2, name=3)\n",
    "s = f'{torch.float32}'\n",
])
def test_honest_triton_fragments_stay_quiet(fragment):
    assert _rules(fragment) == set()
