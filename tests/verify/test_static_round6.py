"""Red-team round 3's scan rules (private-reach in verify/static/escapes.py,
host-python-in-kernel in verify/static/kernels.py), one fragment each, and what they leave
alone; the red-team files of the same classes (E69, E70) run in test_corpora.py."""

import pytest

from warpsmith.verify import static

from .test_redteam_escapes import KERNEL


def _rules(fragment: str) -> set[str]:
    return {f.rule for f in static.scan(KERNEL + fragment).rejected}


@pytest.mark.parametrize("fragment, rule", [
    ("def same(m):\n    return m\nv = same(torch)._dynamo\n", "private-reach"),
    ("t = torch\nv = t._dynamo.variables\n", "private-reach"),
    ("v = [torch][0]._C\n", "private-reach"),
    ("def go(self):\n    return self._dynamo\nv = go(torch)\n", "private-reach"),
    ("class A:\n    def __init__(self):\n        self._dynamo = 0\n"
     "    def go(self):\n        return self._dynamo\nv = A.go(torch)\n", "private-reach"),
    ("class M:\n    def f(self):\n        return self._modules\n", "private-reach"),
    ("m = torch.distributed.is_available\n", "code-generation"),
    ("@triton.jit\ndef k2(p, o):\n    v = float(str(tl.load(p)))\n    tl.store(o, v)\n",
     "host-python-in-kernel"),
    ("import math\n@triton.jit\ndef k2(p, o):\n    tl.store(o, math.exp(tl.load(p)))\n",
     "host-python-in-kernel"),
    ("@triton.jit\ndef k2(p, o, n):\n    vals = []\n    for j in range(n):\n"
     "        vals.append(tl.load(p + j))\n", "host-python-in-kernel"),
    ("def helper(x):\n    return float(x)\n@triton.jit\ndef k2(p, o):\n"
     "    tl.store(o, helper(tl.load(p)))\n", "host-python-in-kernel"),
    ("@triton.jit\ndef k2(p, o):\n    s = f'{tl.load(p)}'\n", "host-python-in-kernel"),
    # a function handed to a kernel (E72): a plain one, a lambda, a builtin, a host module's
    ("def h(v):\n    return v\n@triton.jit\ndef k2(p, F: tl.constexpr):\n    F(tl.load(p))\n"
     "k2[(1,)](0, F=h)\n", "host-python-in-kernel"),
    ("@triton.jit\ndef k2(p, F: tl.constexpr):\n    F(tl.load(p))\nk2[(1,)](0, lambda v: v)\n",
     "host-python-in-kernel"),
    ("@triton.jit\ndef k2(p, F: tl.constexpr):\n    F(tl.load(p))\nk2[(1,)](0, (1, float))\n",
     "host-python-in-kernel"),
    ("import math\nG = math.exp\n@triton.jit\ndef k2(p, F: tl.constexpr):\n    F(tl.load(p))\n"
     "k2[(1,)](0, F=G)\n", "host-python-in-kernel"),
    ("class H:\n    pass\n@triton.jit\ndef k2(p, F: tl.constexpr = H()):\n    F(tl.load(p))\n",
     "host-python-in-kernel"),
])
def test_rule_fires(fragment, rule):
    assert rule in _rules(fragment)


@pytest.mark.parametrize("fragment", [
    "class M:\n    def __init__(self):\n        self._c = 1\n    def f(self):\n"
    "        return self._c\n    def g(self):\n        return self.f()\n",
    "import math\n@triton.jit\ndef k2(p, o, n, BLOCK: tl.constexpr):\n"
    "    LOG: tl.constexpr = math.log2(BLOCK)\n    offs = tl.arange(0, BLOCK)\n"
    "    for j in range(0, n, BLOCK):\n        x = tl.load(p + j + offs).to(tl.float32)\n"
    "        tl.store(o + j + offs, tl.exp(x) * int(BLOCK) + max(1, BLOCK // 2))\n",
    # (a plain helper a kernel calls is a NameError on a GPU: test_static_round10.py)
    # a kernel handed a @triton.jit function, triton.language's own, and plain data
    "@triton.jit\ndef act(x):\n    return tl.maximum(x, 0.0)\n@triton.jit\n"
    "def k2(p, F: tl.constexpr, D: tl.constexpr = tl.float32):\n    F(tl.load(p))\n"
    "k2[(1,)](0, F=act)\nk2[(1,)](0, tl.exp, D=torch.float16)\n",
])
def test_honest_fragments_stay_quiet(fragment):
    assert _rules(fragment) == set()
