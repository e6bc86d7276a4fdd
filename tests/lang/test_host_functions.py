"""lang/triton_compat.refuse_host_functions_in_launches on the Triton installed (CI runs
tests/lang on 3.6 and 3.9): an interpreted kernel handed a plain Python function (as an
argument, inside a tuple or a constexpr, or as a parameter's default) is refused before its
programs run, since under the interpreter that function ran as host Python (E72); a
@triton.jit function and triton.language's own still run. In a child process: the patch
stays for its life."""

import os
import subprocess
import sys

import pytest

RUN = """
import sys, math, torch, triton, triton.language as tl
from warpsmith.lang.triton_compat import refuse_host_functions_in_launches
assert refuse_host_functions_in_launches()

@triton.jit
def relu(v):
    return tl.maximum(v, 0.0)

@triton.jit
def k(p, o, F: tl.constexpr):
    tl.store(o + tl.arange(0, 4), F(tl.load(p + tl.arange(0, 4))))

class Host:
    def __call__(self, v):
        return v

@triton.jit
def k_default(p, o, F: tl.constexpr = Host()):
    tl.store(o + tl.arange(0, 4), F(tl.load(p + tl.arange(0, 4))))

x, y = torch.tensor([-1.0, 2.0, -3.0, 4.0]), torch.zeros(4)
case = sys.argv[1]
try:
    if case == "jit":
        k[(1,)](x, y, relu)
    elif case == "triton":
        k[(1,)](x, y, F=tl.abs)
    elif case == "plain":
        k[(1,)](x, y, F=lambda v: v)
    elif case == "tuple":
        k[(1,)](x, y, (math.exp,))
    elif case == "constexpr":
        k[(1,)](x, y, tl.constexpr(float))
    elif case == "default":
        k_default[(1,)](x, y)
except TypeError as e:
    print("refused", "host Python" in str(e))
except Exception as e:  # Triton's own refusal (the interpreter cannot call tl.abs handed in)
    print("triton refused", type(e).__name__)
else:
    print("ran", y.tolist())
"""


def _run(case: str) -> str:
    env = dict(os.environ, TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", RUN, case], env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout
    return out.strip().splitlines()[-1]


def test_a_kernel_handed_a_jit_function_runs():
    assert _run("jit") == "ran [0.0, 2.0, 0.0, 4.0]"


def test_triton_languages_own_function_is_not_refused_here():
    assert not _run("triton").startswith("refused")


@pytest.mark.parametrize("case", ["plain", "tuple", "constexpr", "default"])
def test_a_kernel_handed_a_host_function_is_refused(case):
    assert _run(case) == "refused True"
