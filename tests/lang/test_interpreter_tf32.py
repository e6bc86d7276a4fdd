"""lang/triton_compat.emulate_interpreter_tf32 on the Triton installed (CI runs tests/lang on
3.6 and 3.9): an fp32 tl.dot at "tf32" (the default, or chosen by a knob) errs on a GPU as TF32
does, and the interpreter now shows that error; "tf32x3" and "ieee" stay at fp32 accuracy.
Without the emulation the interpreter multiplies exactly at every precision. In a child
process: the patch stays for its life."""

import os
import subprocess
import sys

import pytest

RUN = """
import sys, torch, triton, triton.language as tl
from warpsmith.lang.triton_compat import emulate_interpreter_tf32
if sys.argv[1] == "emulated":
    assert emulate_interpreter_tf32()
if sys.argv[3] == "knob":  # the route of red-team round 2: the precision from the knob
    triton.knobs.language.fp32_default = "tf32"

@triton.jit
def k(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
      PRECISION: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if PRECISION == "allow_tf32=False":
        acc = tl.dot(a, b, allow_tf32=False)
    else:
        acc = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

torch.manual_seed(0)
a, b = torch.randn(32, 64), torch.randn(64, 32)
c = torch.empty(32, 32)
k[(1,)](a, b, c, 32, 32, 64, sys.argv[2])
exact = a.double() @ b.double()
print(((c.double() - exact).norm() / exact.norm()).item())
"""


def _error(mode: str, precision: str, knob: str = "none") -> float:
    env = os.environ | {"TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-c", RUN, mode, precision, knob], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return float(done.stdout.split()[-1])


def test_a_tf32_product_shows_the_error_a_gpu_makes():
    # TF32 keeps 10 mantissa bits: a relative error near 2**-11 per operand
    assert 1e-4 < _error("emulated", "tf32") < 3e-3


def test_a_knob_that_overrides_allow_tf32_false_is_seen():
    assert _error("emulated", "allow_tf32=False", "knob") > 1e-4


@pytest.mark.parametrize("precision", ["ieee", "tf32x3"])
def test_fp32_accurate_precisions_stay_accurate(precision):
    assert _error("emulated", precision) < 1e-6


def test_without_the_emulation_every_precision_is_exact():
    assert _error("plain", "tf32") < 1e-6
