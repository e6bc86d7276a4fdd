"""Comparing a candidate's outputs with the reference, in the trusted process.

Tolerances are anchored to a float64 evaluation of the reference (`exact`): the candidate may
err by a small multiple of what the reference itself errs in the task's dtype (`ref`), never
less than a per-dtype floor, and the absolute part scales with the output's RMS so a
near-zero output cannot pass on an absolute tolerance alone. docs/verifier.md has the rule.
"""

from __future__ import annotations

import torch

from ..types import CaseResult

K_REF = 4.0  # the candidate may be this many times as far from exact as the reference is
RTOL = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 2e-2}
ATOL_RMS = {torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 8e-3}  # × output RMS
NORM_FLOOR = {torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 8e-3}


def compare(out, exact: torch.Tensor, ref: torch.Tensor, shape: str, variant: str,
            tolerance: dict | None = None) -> CaseResult:
    """One output tensor against its exact (float64) and dtype reference values."""
    problem = _structure_problem(out, ref)
    if problem:
        return CaseResult(shape, variant, ok=False, numel=ref.numel(), problem=problem)
    if not ref.is_floating_point():
        return _compare_exact(out, exact, ref, shape, variant)
    return _compare_float(out, exact, ref, shape, variant, tolerance or {})


def _structure_problem(out, ref: torch.Tensor) -> str:
    if not isinstance(out, torch.Tensor):
        return f"output is {type(out).__name__}, expected a tensor"
    if out.shape != ref.shape:
        return f"output shape {tuple(out.shape)}, expected {tuple(ref.shape)}"
    if out.dtype != ref.dtype:
        return f"output dtype {out.dtype}, expected {ref.dtype}"
    return ""


def _compare_exact(out, exact, ref, shape, variant) -> CaseResult:
    """Integer outputs (argmax, indices) must equal the reference in its dtype or in float64."""
    bad = (out != ref) & (out != exact.to(out.dtype))
    count = int(bad.sum())
    return CaseResult(shape, variant, ok=count == 0, max_abs=float((out - ref).abs().max())
                      if out.numel() else 0.0, mismatches=count, numel=out.numel(),
                      problem=f"{count} of {out.numel()} integer outputs differ" if count else "")


def _compare_float(out, exact, ref, shape, variant, tolerance) -> CaseResult:
    dtype = ref.dtype
    c, e, r = out.double(), exact.double(), ref.double()
    nonfinite = _nonfinite_mismatch(c, e)
    finite = torch.isfinite(e)
    c, e, r = c[finite], e[finite], r[finite]
    scale = e.pow(2).mean().sqrt().item() if e.numel() else 0.0
    rtol = tolerance.get("rtol", RTOL.get(dtype, 1e-4))
    ref_err = (r - e).abs()
    atol = max(K_REF * (ref_err.max().item() if ref_err.numel() else 0.0),
               tolerance.get("atol", ATOL_RMS.get(dtype, 1e-5)) * scale)
    err = (c - e).abs()
    bad = ~(err <= atol + rtol * e.abs())  # NaN in the candidate counts as bad
    norm_e = e.norm().item()
    norm_rel = (c - e).norm().item() / norm_e if norm_e else float(err.max().item() > 0)
    ref_norm_rel = (r - e).norm().item() / norm_e if norm_e else 0.0
    # A task's rtol override loosens the norm-wise bound too, never tightens it.
    norm_floor = max(NORM_FLOOR.get(dtype, 1e-5), tolerance.get("rtol", 0.0))
    norm_ok = norm_rel <= max(K_REF * ref_norm_rel, norm_floor)
    mismatches = int(bad.sum()) + nonfinite
    ok = mismatches == 0 and norm_ok
    return CaseResult(
        shape, variant, ok=ok, max_abs=_max(err), max_rel=_max(err / e.abs().clamp_min(scale)),
        norm_rel=norm_rel, ref_norm_rel=ref_norm_rel, mismatches=mismatches,
        numel=out.numel(), problem="" if ok else _describe(out, bad, finite, nonfinite, norm_ok,
                                                           norm_rel, atol, rtol))


def _nonfinite_mismatch(c: torch.Tensor, e: torch.Tensor) -> int:
    """NaN and ±Inf must sit exactly where the reference has them."""
    ref_nan, ref_inf = torch.isnan(e), torch.isinf(e)
    wrong = (torch.isnan(c) != ref_nan) | (ref_inf & (c != e))
    return int(wrong.sum())


def _describe(out, bad, finite, nonfinite, norm_ok, norm_rel, atol, rtol) -> str:
    parts = []
    if nonfinite:
        parts.append(f"{nonfinite} NaN/Inf positions differ from the reference")
    count = int(bad.sum())
    if count:
        flat = finite.flatten().nonzero().flatten()[bad.flatten().nonzero().flatten()[:3]]
        where = ", ".join(str(tuple(int(i) for i in torch.unravel_index(j, out.shape)))
                          for j in flat)
        parts.append(f"{count} of {out.numel()} elements outside atol {atol:.2e} + rtol "
                     f"{rtol:.0e}·|expected| (first at {where})")
    if not norm_ok:
        parts.append(f"relative error {norm_rel:.2e} too large")
    return "; ".join(parts)


def _max(x: torch.Tensor) -> float:
    return float(x.max()) if x.numel() else 0.0
