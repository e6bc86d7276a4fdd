"""Red-team round 8's scan rules (module-write in verify/static/escapes.py, the widened
host-python-in-kernel in verify/static/kernels.py), one fragment each, and the honest forms
an outside helper playing an LLM wrote that the kernel rule refused before this round (a
lambda in @triton.heuristics, autotune configs from a helper that appends); the red-team
files (E81-E86) run in test_corpora.py."""

import pytest

from warpsmith.verify import static

from .test_redteam_escapes import KERNEL


def _rules(fragment: str) -> set[str]:
    return {f.rule for f in static.scan(KERNEL + fragment).rejected}


@pytest.mark.parametrize("fragment, rule", [
    ("import enum\nA = enum.StrEnum('A', [('X', 'mm')], module='m')\n", "module-write"),
    ("import enum\nfrom enum import global_enum as g\n", "module-write"),
    ("import enum\n@enum.global_enum\nclass A(enum.IntEnum):\n    X = 1\n", "module-write"),
    ("import collections\nT = collections.namedtuple('T', 'a', module='m')\n", "module-write"),
    # a host object's method reached through a tuple, and one bound through `global`
    ("class H:\n    def go(self, p):\n        return 0\nH0 = H()\n@triton.jit\ndef k2(p):\n"
     "    (H0,)[0].go(p)\n", "host-python-in-kernel"),
    ("class H:\n    def go(self, p):\n        return 0\nG = 0\ndef setup():\n    global G\n"
     "    G = H()\n@triton.jit\ndef k2(p):\n    G.go(p)\n", "host-python-in-kernel"),
    # a module constant the kernel rebinds from a kernel value is no longer compile-time
    ("V = 0.0\n@triton.jit\ndef k2(p, o):\n    V = tl.load(p)\n    tl.store(o, float(str(V)))\n",
     "host-python-in-kernel"),
    ("V = 0.0\n@triton.jit\ndef k2(p, o):\n    for V in range(3):\n        tl.store(o, float(V))\n",
     "host-python-in-kernel"),
    # a plain function through a subscript, and an object of the file's class handed in
    ("class C:\n    fn = None\n@triton.jit\ndef k2(p):\n    tl.reduce(tl.load(p), 0, (C,)[0])\n",
     "host-python-in-kernel"),
    ("class D(tl.dtype):\n    pass\n@triton.jit\ndef k2(p, d):\n    pass\nd = D('fp32')\n"
     "k2[(1,)](0, d)\n", "host-python-in-kernel"),
])
def test_rule_fires(fragment, rule):
    assert rule in _rules(fragment)


@pytest.mark.parametrize("fragment", [
    "import enum\nclass A(enum.IntEnum):\n    X = 1\n",
    # decorators are host code at the launch, not kernel code
    "@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})\n@triton.jit\n"
    "def k2(p, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n    tl.load(p)\n",
    "def configs():\n    out = []\n    for b in [128, 256]:\n"
    "        out.append(triton.Config({'BLOCK': b}, num_warps=4))\n    return out\n"
    "@triton.autotune(configs=configs(), key=['n'])\n@triton.jit\n"
    "def k2(p, n, BLOCK: tl.constexpr):\n    tl.load(p)\n",
    "@triton.autotune(configs=[triton.Config({'B': 64}, pre_hook=lambda a: a['o'].zero_())],"
    " key=['n'])\n@triton.jit\ndef k2(p, o, n, B: tl.constexpr):\n    tl.load(p)\n",
    # module constants read, and rebound from constants, stay compile-time; a helper's result
    # handed to a launch is data
    "import math\nLOG2E: tl.constexpr = tl.constexpr(math.log2(math.e))\n"
    "SCALE = tl.constexpr(2.0)\n"
    "@triton.jit\ndef k2(p, o, B: tl.constexpr):\n    S = SCALE * 2\n"
    "    tl.store(o, tl.exp2(tl.load(p) * LOG2E) * float(S))\n"
    "def block(n):\n    return 128\nk2[(1,)](0, 0, B=block(4))\n",
])
def test_honest_fragments_stay_quiet(fragment):
    assert _rules(fragment) == set()


TF32_KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, ALLOW_TF32: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs[:, None] * 16 + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * 16 + offs[None, :])
    tl.store(c_ptr + offs[:, None] * 16 + offs[None, :], tl.dot(a, b, allow_tf32=ALLOW_TF32))
"""


@pytest.mark.parametrize(("launches", "refused"), [
    ("mm[(1,)](a, b, c, ALLOW_TF32=False)\n", False),  # triton.ops.matmul's own style
    ("mm[(1,)](a, b, c, ALLOW_TF32=False)\nmm[(1,)](a, b, c, ALLOW_TF32=True)\n", True),
    ("mm[(1,)](a, b, c, ALLOW_TF32=True)\n", True),
    ("mm[(1,)](a, b, c, False)\n", True),  # positional: not read
    ("", True),
])
def test_a_dots_precision_given_as_a_constexpr_is_what_every_launch_passes(launches, refused):
    from warpsmith.verify.static.tf32 import tf32_dots

    assert bool(tf32_dots(TF32_KERNEL + launches)) == refused


@pytest.mark.parametrize("fragment", [
    # round 9: names bound in ways Triton compiles none of, inside kernels
    "V = 0.0\n@triton.jit\ndef k2(p, o):\n    match tl.load(p):\n        case V:\n"
    "            pass\n    tl.store(o, float(str(V)))\n",
    "V = 0.0\n@triton.jit\ndef grab(p):\n    global V\n    V = tl.load(p)\n",
])
def test_statements_triton_cannot_compile_are_refused_in_kernels(fragment):
    assert "host-python-in-kernel" in _rules(fragment)


def test_a_rule_that_fails_refuses_the_file_and_says_it_is_the_verifiers_fault(monkeypatch):
    def broken(tree):
        raise TypeError("a bug")
        yield  # a generator, as the rules are

    monkeypatch.setitem(static.RULES, "broken", ("reject", broken))
    findings = static.scan(KERNEL).rejected
    assert [f.rule for f in findings] == ["scan-failed"]
    assert "verifier's fault" in findings[0].reason and "TypeError" in findings[0].reason
