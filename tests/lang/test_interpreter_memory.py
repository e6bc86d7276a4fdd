"""lang/triton_compat.watch_interpreter_memory on the Triton installed (CI runs this file on
3.6 and 3.9, whose interpreter signatures differ): a masked kernel runs as before, plain,
masked and atomic accesses are all seen, and an unmasked read past the end is refused
(verify/child/bounds.py's policy). In a child process: the hooks stay for its life."""

import os
import re
import subprocess
import sys

RUN = """
import torch, triton, triton.language as tl
from warpsmith.verify.child import bounds
assert bounds.install()

@triton.jit
def k(x_ptr, o_ptr, n, B: tl.constexpr, MASKED: tl.constexpr):
    off = tl.program_id(0) * B + tl.arange(0, B)
    if MASKED:
        x = tl.load(x_ptr + off, mask=off < n)
    else:
        x = tl.load(x_ptr + off)
    tl.store(o_ptr + off, x, mask=off < n)
    tl.atomic_add(o_ptr + off, 1.0, mask=off < n)

x, o = torch.randn(100), torch.empty(100)
k[(2,)](x, o, 100, B=64, MASKED=True)
assert torch.allclose(o, x + 1)
try:
    k[(2,)](x, o, 100, B=64, MASKED=False)
except Exception as e:
    print("refused:", e)
"""


def test_the_interpreters_accesses_are_watched_on_this_triton():
    env = os.environ | {"TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused:" in done.stdout and "out-of-bounds load" in done.stdout
    # program 1's lanes 100..127 read past x; how many of them land in no tensor at all depends on
    # where the allocator put `o` (on 3.9's CI run, 16 of them fell inside it)
    bad = int(re.search(r"(\d+) of 64 unmasked lanes", done.stdout).group(1))
    assert 1 <= bad <= 28, done.stdout
    assert "4 bytes past the end of `x_ptr` (400 bytes)" in done.stdout
