"""ALLOWED_TORCH lets a task permit named torch functions; everything else is forbidden."""

from dataclasses import replace

from warpsmith.config import PROFILES
from warpsmith.verify.pipeline import verify

PROFILE = replace(PROFILES["quick"], timeout_s=120)

TASK = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, DIM, TOKENS = 53, 37, 29
SHAPES = {{"small": {{"VOCAB": 53, "DIM": 37, "TOKENS": 29}}}}
ALLOWED_TORCH = {allowed}


class Model(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.table = nn.Parameter(torch.randn(vocab, dim))

    def forward(self, idx):
        return F.embedding(idx, self.table) * 3.0 - 1.0


def get_inputs():
    return [torch.randint(0, VOCAB, (TOKENS,))]


def get_init_inputs():
    return [VOCAB, DIM]
'''

CANDIDATE = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0 - 1.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.table = nn.Parameter(torch.empty(vocab, dim))

    def forward(self, idx):
        rows = F.embedding(idx, self.table)
        out = torch.empty_like(rows)
        affine_kernel[(triton.cdiv(rows.numel(), 256),)](rows, out, rows.numel(), BLOCK=256)
        return out
'''


def _verify(tmp_path, allowed):
    task = tmp_path / "embed_affine.py"
    task.write_text(TASK.format(allowed=allowed))
    cand = tmp_path / "candidate.py"
    cand.write_text(CANDIDATE)
    return verify(task, cand, device="cpu", profile=PROFILE)


def test_listed_torch_function_is_allowed(tmp_path):
    verdict = _verify(tmp_path, '["torch.nn.functional.embedding"]')
    assert verdict.status == "passed", verdict.feedback


def test_unlisted_torch_compute_is_rejected(tmp_path):
    verdict = _verify(tmp_path, "[]")
    assert verdict.status == "rejected" and verdict.rules == ("forbidden-op",)
    assert "aten.embedding" in verdict.reasons[0]


def test_guard_compares_namespaced_ops_and_sees_host_access():
    """In process: a custom op named like an always-allowed one is forbidden, an allowed aten
    op is not, and data reaching the host (unbound tolist, printing) is recorded."""
    import torch

    from warpsmith.verify.child.dispatch import OpGuard

    lib = torch.library.Library("ws_test_guard", "DEF")
    lib.define("empty_like(Tensor x) -> Tensor")
    lib.impl("empty_like", lambda x: torch.relu(x), "CompositeExplicitAutograd")
    x = torch.randn(5)
    with OpGuard(("torch.relu",)) as guard:
        torch.empty_like(x), torch.relu(x), torch.ops.ws_test_guard.empty_like(x)
        torch.Tensor.tolist(x), f"{x}"
    assert "ws_test_guard.empty_like" in guard.forbidden
    assert not {"aten.empty_like", "aten.relu"} & guard.forbidden
    assert {"torch.Tensor.tolist (tensor data on the host)",
            "torch.Tensor.__format__ (tensor data on the host)"} <= guard.forbidden
