"""Rounds 10 and 11's scan rules, one fragment each: globals a kernel may read as Triton's
compiler lets it (global-in-kernel), an index known only at run time, a string formatted
through a name; and the honest forms outside helpers playing an LLM wrote that the scan refused
before (a tl.math alias, tl.constexpr globals, the libdevice import fallback, a staticmethod
kernel launched off self, the class's own private method). The red-team files (E91-E97) and
the honest ones run in test_corpora.py."""

import pytest

from warpsmith.verify import static

from .test_redteam_escapes import KERNEL

PLAIN_HELPER = ("def helper(v):\n    return v\n@triton.jit\ndef k2(p):\n"
                "    tl.store(p, helper(tl.load(p)))\n")


def _rules(fragment: str, base: str = KERNEL) -> set[str]:
    return {f.rule for f in static.scan(base + fragment).rejected}


@pytest.mark.parametrize("fragment, rule", [
    # what Triton's compiler refuses in a kernel: a plain function, a number, an annotated
    # number, a builtin it does not list, a function imported from a host module
    (PLAIN_HELPER, "global-in-kernel"),
    ("N = 4\n@triton.jit\ndef k2(p):\n    tl.store(p, tl.load(p) * N)\n", "global-in-kernel"),
    ("N: tl.constexpr = 4\n@triton.jit\ndef k2(p):\n    tl.store(p, tl.load(p) * N)\n",
     "global-in-kernel"),
    ("@triton.jit\ndef k2(p):\n    tl.store(p, abs(tl.load(p)))\n", "global-in-kernel"),
    ("from math import exp\n@triton.jit\ndef k2(p):\n    tl.store(p, exp(tl.load(p)))\n",
     "global-in-kernel"),
    # an index known only at run time (round 11: a tuple indexed by a comparison)
    ("@triton.jit\ndef k2(p):\n    x = tl.load(p)\n    tl.store(p, (0.0, x)[x > 0])\n",
     "host-python-in-kernel"),
    # "%" with a string bound to a name (round 10)
    ("F = '%s'\n@triton.jit\ndef k2(p):\n    s = F % tl.load(p)\n", "host-python-in-kernel"),
])
def test_rule_fires(fragment, rule):
    assert rule in _rules(fragment)


@pytest.mark.parametrize("fragment", [
    # what Triton's compiler takes: tl.constexpr values (annotated too), tl objects under other
    # names, modules, jit helpers, the builtins it lists, a static_range index into a tuple
    "N = tl.constexpr(4)\n@triton.jit\ndef k2(p):\n    tl.store(p, tl.load(p) * N)\n",
    "N: tl.constexpr = tl.constexpr(4)\n@triton.jit\ndef k2(p):\n    tl.store(p, tl.load(p) * N)\n",
    "tlmath = tl.math\n@triton.jit\ndef k2(p):\n    tl.store(p, tlmath.rsqrt(tl.load(p)))\n",
    "F32 = tl.float32\n@triton.jit\ndef k2(p):\n    tl.store(p, tl.load(p).to(F32))\n",
    "@triton.jit\ndef h(x):\n    return x\n@triton.jit\ndef k2(p, n):\n"
    "    for i in range(min(n, 4)):\n        tl.store(p + i, h(tl.load(p + i)))\n",
    "@triton.jit\ndef k2(p):\n    t = (1.0, 2.0)\n    for i in tl.static_range(2):\n"
    "        tl.store(p + i, tl.load(p + i) * t[i])\n",
    "@triton.jit\ndef k2(p, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n"
    "    tl.store(p + o[:, None], tl.load(p + o[None, :]))\n",
    "try:\n    from triton.language.extra.cuda import libdevice\nexcept ImportError:\n"
    "    from triton.language.extra import libdevice\n",
])
def test_honest_forms_pass(fragment):
    assert not _rules(fragment)


def test_a_staticmethod_kernel_launched_off_self_and_a_private_method_pass():
    source = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    @staticmethod
    @triton.jit
    def _copy(x_ptr, BLOCK: tl.constexpr):
        o = tl.arange(0, BLOCK)
        tl.store(x_ptr + o, tl.load(x_ptr + o))

    def _launch(self, x):
        self._copy[(1,)](x, BLOCK=16)

    def forward(self, x):
        self._launch(x)
        return x
'''
    assert not {f.rule for f in static.scan(source).rejected}


def test_a_private_method_that_overrides_nn_module_machinery_is_still_refused():
    source = KERNEL.replace("    def forward(self, x):\n",
                            "    def _apply(self, fn):\n        return self\n\n"
                            "    def forward(self, x):\n        self._apply(None)\n")
    assert "private-reach" in {f.rule for f in static.scan(source).rejected}
