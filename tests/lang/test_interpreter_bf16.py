"""lang/triton_compat.fix_interpreter_bf16_dot on the Triton installed (CI runs this file on
3.6 and 3.9): the interpreter keeps bf16 as its uint16 bits, and Triton 3.6's tl.dot
multiplied those bits as integers, so a correct bf16 GEMM was judged incorrect on the CPU.
With the fix a bf16 product is exact against fp32 products of the same values, as a GPU's bf16
MMA computes it; without it, it is not. In a child process: the patch stays for its life."""

import os
import subprocess
import sys

RUN = """
import sys, torch, triton, triton.language as tl
from warpsmith.lang.triton_compat import fix_interpreter_bf16_dot
if sys.argv[1] == "fixed":
    assert fix_interpreter_bf16_dot()

@triton.jit
def k(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    acc = tl.dot(a, b, tl.zeros((M, N), tl.float32))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

torch.manual_seed(0)
a, b = torch.randn(16, 32).bfloat16(), torch.randn(32, 16).bfloat16()
c = torch.empty(16, 16)
k[(1,)](a, b, c, 16, 16, 32)
print((c - a.float() @ b.float()).abs().max().item())
"""


def _error(mode: str) -> float:
    env = os.environ | {"TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-c", RUN, mode], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return float(done.stdout.split()[-1])


def test_a_bf16_dot_under_the_interpreter_is_what_a_gpu_computes():
    assert _error("fixed") <= 1e-5  # fp32 sums of exact products, in another order


def test_without_the_fix_this_triton_gets_it_wrong_or_the_fix_is_no_longer_needed():
    """Documents why the patch exists; if a Triton release fixes its interpreter this reads
    a small error, and the patch is a harmless widening."""
    error = _error("plain")
    assert error > 1.0 or error <= 1e-5
