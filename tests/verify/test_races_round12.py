"""Red-team round 12's classes, with the honest forms beside them (the corpus holds the
attacks, E98-E101): an atomic's returned value used by the kernel is a read; a program's
load of what another lane of its block stored needs a tl.debug_barrier between; a helper's
tl.constexpr parameter takes compile-time values only. Each runs through the verifier, in
the worker, where these checks are installed."""

from dataclasses import replace

import pytest

from warpsmith.config import PROFILES
from warpsmith.verify.pipeline import verify

PROFILE = replace(PROFILES["quick"], timeout_s=120, decoys=(0, 0))

HEAD = """import torch
import torch.nn as nn
import triton
import triton.language as tl
"""

# relu; every program also adds its element count into one total with atomic_add, the
# result used (USE=1) or not (USE=0): a count read back is what another program left
COUNT = HEAD + """

@triton.jit
def relu_kernel(x_ptr, out_ptr, total_ptr, n, BLOCK: tl.constexpr, USE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if USE:
        before = tl.atomic_add(total_ptr, tl.sum(mask.to(tl.int32)))
        x = x + (before * 0).to(x.dtype)
    else:
        tl.atomic_add(total_ptr, tl.sum(mask.to(tl.int32)))
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out, total = torch.empty_like(x), torch.zeros(1, dtype=torch.int32, device=x.device)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out, total, n, BLOCK=256, USE=%d)
        return out
"""

# relu written to the output, then read back from it: by the same lanes (SHIFT=0), or by
# the next lane, with a barrier between (BARRIER=1) or not
READ_BACK = HEAD + """

@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SHIFT: tl.constexpr,
                BARRIER: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)
    if BARRIER:
        tl.debug_barrier()
    back = offs + SHIFT
    inside = mask & (back < n) & (back < tl.program_id(0) * BLOCK + BLOCK)
    y = tl.load(out_ptr + back, mask=inside, other=0.0)
    tl.store(out_ptr + back, y, mask=inside)


class ModelNew(nn.Module):
    def forward(self, x):
        out, n = torch.empty_like(x), x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256, SHIFT=%d, BARRIER=%d)
        return out
"""

# relu through a helper whose tl.constexpr parameter gets the kernel's own constexpr
# (LOADED=0) or a loaded value (LOADED=1)
HELPER = HEAD + """

@triton.jit
def scaled(x, SCALE: tl.constexpr):
    return x * SCALE


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, ONE: tl.constexpr,
                LOADED: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0)
    if LOADED:
        y = scaled(x, tl.load(x_ptr) * 0.0 + 1.0)
    else:
        y = scaled(x, ONE)
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out, n = torch.empty_like(x), x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256, ONE=1.0, LOADED=%d)
        return out
"""


@pytest.mark.parametrize("source, status, reason", [
    (COUNT % 0, "passed", ""),
    (COUNT % 1, "runtime_error", "using an atomic's returned value"),
    (READ_BACK % (0, 0), "passed", ""),
    (READ_BACK % (1, 1), "passed", ""),
    (READ_BACK % (1, 0), "runtime_error", "no tl.debug_barrier between"),
    (HELPER % 0, "passed", ""),
    (HELPER % 1, "runtime_error", "run-time value for its tl.constexpr parameter"),
], ids=["atomic-result-unused", "atomic-result-read", "same-lanes", "other-lanes-barrier",
        "other-lanes-no-barrier", "constexpr-given-constexpr", "constexpr-given-loaded"])
def test_round12_class_and_its_honest_form(tmp_path, source, status, reason):
    path = tmp_path / "candidate.py"
    path.write_text(source)
    v = verify("level1/relu", path, device="cpu", profile=PROFILE, store=None)
    assert v.status == status, v.feedback
    assert reason in " ".join(v.reasons)
