"""The comparison rule on hand-made outputs (docs/verifier.md, layer 4)."""

import torch

from warpsmith.verify.correctness import compare


def _pair(dtype, n=4096, scale=1.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    exact = torch.randn(n, generator=g, dtype=torch.float64) * scale
    return exact, exact.to(dtype)


def test_exact_copy_passes_and_reports_zero_error():
    exact, ref = _pair(torch.float32)
    result = compare(ref.clone(), exact, ref, "small", "base")
    assert result.ok and result.mismatches == 0 and result.norm_rel < 1e-7


def test_fp16_shortcut_on_an_fp32_task_fails():
    exact, ref = _pair(torch.float32)
    result = compare(ref.half().float(), exact, ref, "small", "base")
    assert not result.ok and "outside" in result.problem


def test_fp16_task_accepts_fp16_rounding_but_not_bf16():
    exact, ref = _pair(torch.float16)
    assert compare(exact.to(torch.float16), exact, ref, "s", "base").ok
    assert not compare(exact.to(torch.bfloat16).to(torch.float16), exact, ref, "s", "base").ok


def test_near_zero_output_cannot_pass_on_absolute_tolerance():
    exact, ref = _pair(torch.float32, scale=1e-6)
    assert not compare(torch.zeros_like(ref), exact, ref, "s", "base").ok


def test_nan_in_output_fails_and_nan_positions_must_match():
    exact, ref = _pair(torch.float32)
    out = ref.clone()
    out[7] = float("nan")
    result = compare(out, exact, ref, "s", "base")
    assert not result.ok and "NaN/Inf positions" in result.problem
    exact[3], ref[3], out[7] = float("inf"), float("inf"), ref[7]
    assert not compare(out, exact, ref, "s", "base").ok  # finite where the reference is inf
    out[3] = float("inf")
    assert compare(out, exact, ref, "s", "base").ok


def test_shape_dtype_and_type_mismatches_are_named():
    exact, ref = _pair(torch.float32)
    assert "shape" in compare(ref[:-1], exact, ref, "s", "base").problem
    assert "dtype" in compare(ref.double(), exact, ref, "s", "base").problem
    assert "expected a tensor" in compare([1.0], exact, ref, "s", "base").problem


def test_integer_outputs_must_be_exact():
    ref = torch.arange(10)
    assert compare(ref.clone(), ref, ref, "s", "base").ok
    wrong = ref.clone()
    wrong[2] = 5
    result = compare(wrong, ref, ref, "s", "base")
    assert not result.ok and result.mismatches == 1


def test_tolerance_scales_with_the_references_own_error():
    # A long fp32 reduction: the reference itself errs; a candidate as good must pass.
    g = torch.Generator().manual_seed(1)
    x = torch.randn(64, 100_000, generator=g, dtype=torch.float64)
    exact = x.sum(-1)
    ref = x.float().sum(-1)
    blocked = x.float().view(64, 100, 1000).sum(-1).sum(-1)  # another fp32 summation order
    assert compare(blocked, exact, ref, "s", "base").ok


def test_task_tolerance_override_is_applied():
    exact, ref = _pair(torch.float32)
    loose = ref * (1 + 1e-3)
    assert not compare(loose, exact, ref, "s", "base").ok
    assert compare(loose, exact, ref, "s", "base", {"rtol": 2e-3}).ok
