"""Red-team round 14's classes, with the honest forms beside them (the corpus holds the
attacks, E107-E108): within one program, since its last tl.debug_barrier, a store of what
another lane read (write-after-read), a load of what another lane updated atomically, a
store and another lane's atomic update of one address, and two lanes storing different
values to one address are races on a GPU, exact under the interpreter. Also the trusted
side's reading of the candidate's numbers and IPC handles (E108)."""

from dataclasses import replace

import pytest

from warpsmith.config import PROFILES
from warpsmith.verify import ipc, protocol
from warpsmith.verify.pipeline import verify
from warpsmith.verify.worker_report import number, parse_report

PROFILE = replace(PROFILES["quick"], timeout_s=120, decoys=(0, 0))

HEAD = """import torch
import torch.nn as nn
import triton
import triton.language as tl
"""

# cumsum by a Hillis-Steele scan through global memory, a barrier before each shifted load
# and (AFTER=1) another before the store that overwrites what other lanes read
SCAN = HEAD + """

@triton.jit
def scan_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr, STEPS: tl.constexpr,
                AFTER: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    base = out_ptr + row * n_cols
    acc = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(base + cols, acc, mask=mask)
    shift = 1
    for _ in tl.static_range(STEPS):
        tl.debug_barrier()
        src = cols - shift
        acc = acc + tl.load(base + src, mask=mask & (src >= 0), other=0.0)
        if AFTER:
            tl.debug_barrier()
        tl.store(base + cols, acc, mask=mask)
        shift = shift * 2


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        n_rows, n_cols = x2.shape
        block = triton.next_power_of_2(n_cols)
        out = torch.empty_like(x2)
        scan_kernel[(n_rows,)](x2, out, n_cols, BLOCK=block,
                               STEPS=max(1, (block - 1).bit_length()), AFTER=%d)
        return out.view(x.shape)
"""

# softmax whose denominator every lane adds into a zeroed slot with atomic_add, then reads
# back with a plain load, with a barrier between (BARRIER=1) or not; every lane reads the
# slot with an atomic that adds 0 (ATOMIC=1) after the barrier
SOFTMAX = HEAD + """

@triton.jit
def softmax_kernel(x_ptr, out_ptr, den_ptr, n_cols, BLOCK: tl.constexpr,
                   BARRIER: tl.constexpr, ATOMIC: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.atomic_add(den_ptr + row + cols * 0, e, mask=mask)
    if BARRIER:
        tl.debug_barrier()
    if ATOMIC:
        den = tl.atomic_add(den_ptr + row + cols * 0, tl.zeros([BLOCK], tl.float32), mask=mask)
    else:
        den = tl.load(den_ptr + row)
    tl.store(out_ptr + row * n_cols + cols, e / den, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        den = torch.zeros(x2.shape[0], device=x.device, dtype=torch.float32)
        softmax_kernel[(x2.shape[0],)](x2, out, den, x2.shape[1],
                                       BLOCK=triton.next_power_of_2(x2.shape[1]),
                                       BARRIER=%d, ATOMIC=%d)
        return out.view(x.shape)
"""

# row sums: the row's first element stored into the slot, the other lanes' atomic_adds
# after it, with a barrier between (BARRIER=1) or not
SUM = HEAD + """

@triton.jit
def sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr, BARRIER: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.load(x_ptr + row * n_cols))
    if BARRIER:
        tl.debug_barrier()
    tl.atomic_add(out_ptr + row + cols * 0, x, mask=(cols > 0) & (cols < n_cols))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty(x2.shape[0], device=x.device, dtype=x.dtype)
        sum_kernel[(x2.shape[0],)](x2, out, x2.shape[1],
                                   BLOCK=triton.next_power_of_2(x2.shape[1]), BARRIER=%d)
        return out.view(x.shape[:-1])
"""

# relu by 2*BLOCK lanes onto BLOCK addresses: the lower lanes store relu too (SAME=1, the
# lanes agree) or a wrong value (SAME=0, the upper lanes' store lands last here)
TWICE = HEAD + """

@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SAME: tl.constexpr):
    lanes = tl.arange(0, 2 * BLOCK)
    offsets = tl.program_id(0) * BLOCK + (lanes %% BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    if SAME:
        value = tl.maximum(x, 0.0)
    else:
        value = tl.where(lanes >= BLOCK, tl.maximum(x, 0.0), x * 3.0 - 1.0)
    tl.store(out_ptr + offsets, value, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256, SAME=%d)
        return out
"""

RACE = "no tl.debug_barrier between"


@pytest.mark.parametrize("task, source, status, reason", [
    ("level1/cumsum", SCAN % 1, "passed", ""),
    ("level1/cumsum", SCAN % 0, "runtime_error", "that lane"),
    ("level1/softmax", SOFTMAX % (1, 0), "passed", ""),
    ("level1/softmax", SOFTMAX % (1, 1), "passed", ""),
    ("level1/softmax", SOFTMAX % (0, 0), "runtime_error", "updated atomically"),
    ("level1/sum_last_dim", SUM % 1, "passed", ""),
    ("level1/sum_last_dim", SUM % 0, "runtime_error", "atomically in lane"),
    ("level1/relu", TWICE % 1, "passed", ""),
    ("level1/relu", TWICE % 0, "runtime_error", "different values"),
], ids=["scan-barriers-both-sides", "scan-store-after-others-read", "atomic-sum-barrier-load",
        "atomic-sum-barrier-atomic-read", "atomic-sum-then-load", "store-barrier-atomics",
        "store-then-others-atomics", "two-lanes-same-value", "two-lanes-two-values"])
def test_round14_class_and_its_honest_form(tmp_path, task, source, status, reason):
    path = tmp_path / "candidate.py"
    path.write_text(source)
    v = verify(task, path, device="cpu", profile=PROFILE, store=None)
    assert v.status == status, v.feedback
    assert reason in " ".join(v.reasons)
    if status != "passed":
        assert RACE in " ".join(v.reasons)


def test_an_integer_beyond_64_bits_from_the_candidate_is_malformed_not_an_exception():
    """E108: a GPU kernel's time of 400 digits passed number() and float() raised
    OverflowError out of the trusted side (and out of the tuner's search)."""
    with pytest.raises(ValueError, match="outside 64 bits"):
        protocol.untrusted_json(b'{"gpu_kernels": [[["k", ' + b"9" * 400 + b"]]]}")
    assert protocol.untrusted_json(b'{"n": -9223372036854775808}') == {"n": -2**63}
    assert not number(10**400) and not number(True) and number(2**62) and number(1e300)
    raw = {"stage": "done", "kernels": [[["k", True]]], "threads_started": [0],
           "forbidden_ops": [[]], "inputs_modified": [], "aliased": [], "bad_outputs": [],
           "poison_off": [], "gpu_kernels": [[["k", 10**400]]], "tampered": []}
    assert isinstance(parse_report(raw, 1), str)


def test_the_tuners_ranking_reads_a_huge_integer_as_absent():
    from warpsmith.search.tuner import _ranking

    ranking = _ranking({"variants": [{"times_us": [10**400, 5.0], "agrees": True,
                                      "compile_s": 10**400}], "phases": {"a": 10**400}},
                       1.0, "", "", 1)
    assert ranking.entries[0].median_us == 5.0 and ranking.phases == {}


def test_gpu_output_entries_nested_past_the_decoder_are_malformed():
    """E108: ipc.read_manifest decoded the worker's payload with json.loads, and a list
    nested 200000 deep raised RecursionError out of the trusted side."""
    with pytest.raises(ValueError, match="nested too deeply"):
        ipc.read_manifest(b"[" * 200000, [[]])


def test_an_ipc_handle_the_driver_refuses_is_the_candidates_failure(monkeypatch):
    """E108: a forged handle made cuIpcOpenMemHandle fail, and the RuntimeError of its check
    left the trusted side (every caller turns ValueError into a malformed frame)."""
    class Refusing:
        def cuIpcOpenMemHandle_v2(self, *args):
            return 400  # CUDA_ERROR_INVALID_HANDLE

    monkeypatch.setattr(ipc, "_driver", lambda: Refusing())
    with pytest.raises(ValueError, match="refused an IPC handle"):
        ipc.Mapped()._open("ab" * 64)
