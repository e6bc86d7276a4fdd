"""lang/triton_compat.emulate_interpreter_libdevice on the Triton installed (CI runs tests/lang
on 3.6 and 3.9): Triton's interpreter runs no libdevice function (its stubs return None), so
an honest kernel that calls libdevice.erf or tl.extra.cuda.libdevice.tanh failed on the CPU;
emulated, both modules compute as a GPU's libdevice would, NaN and predicates included,
and refuse what it has no form for (fp16). In a
child process: the patch stays for its life."""

import os
import subprocess
import sys

RUN = """
import torch, triton, triton.language as tl
from warpsmith.lang.triton_compat import emulate_interpreter_libdevice
assert emulate_interpreter_libdevice()
from triton.language.extra import libdevice

@triton.jit
def k(x_ptr, out_ptr, flag_ptr, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = libdevice.erf(x) + tl.extra.cuda.libdevice.tanh(x) + libdevice.pow(x, 2.0)
    tl.store(out_ptr + offs, libdevice.fma(x, x, y), mask=offs < n)
    tl.store(flag_ptr + offs, libdevice.isnan(x).to(tl.int32), mask=offs < n)

for dtype in (torch.float32, torch.float64):
    x = torch.randn(16).to(dtype)
    x[5] = float("nan")
    out, flag = torch.empty_like(x), torch.empty(16, dtype=torch.int32)
    k[(1,)](x, out, flag, 16, B=16)
    xf = x.float()
    want = (torch.erf(xf) + torch.tanh(xf) + xf ** 2 + xf * xf).to(dtype)
    torch.testing.assert_close(out, want, equal_nan=True, atol=2e-3, rtol=2e-3)
    assert flag.tolist() == [int(i == 5) for i in range(16)]
x = torch.randn(16).half()  # libdevice has no fp16 form: a GPU refuses it when compiling
try:
    k[(1,)](x, torch.empty_like(x), torch.empty(16, dtype=torch.int32), 16, B=16)
except Exception as e:
    assert "fp32 or fp64" in str(e), e
else:
    raise AssertionError("an fp16 libdevice call ran")
print("ok")
"""


def test_libdevice_computes_under_the_interpreter():
    env = dict(os.environ, TRITON_INTERPRET="1")
    done = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
