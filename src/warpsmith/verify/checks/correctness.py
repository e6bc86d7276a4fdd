"""Comparing a candidate's outputs with the reference, in the trusted process.

Tolerances are anchored to a float64 evaluation of the reference (`exact`): the candidate may
err by a small multiple of what the reference itself errs in the task's dtype (`ref`), never
less than a per-dtype floor, and the absolute part scales with the output's RMS so a
near-zero output cannot pass on an absolute tolerance alone. docs/verifier.md has the rule.
"""

from __future__ import annotations

import math

import torch

from ...types import CaseResult

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
    if ref.is_complex():  # real and imaginary parts, each held to the tolerance of its dtype
        out, exact, ref = (torch.view_as_real(t.resolve_conj()) for t in (out, exact, ref))
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
    rtol = tolerance.get("rtol", RTOL.get(dtype, 1e-4))
    s = _Sums()  # the whole-tensor quantities, from float64 chunks (outputs of gigabytes)
    for c, e, r in _chunks(out, exact, ref):
        s.first_pass(c, e, r)
    scale = s.e.value / math.sqrt(s.finite) if s.finite else 0.0
    atol = max(K_REF * s.ref_err, tolerance.get("atol", ATOL_RMS.get(dtype, 1e-5)) * scale)
    bad, first, err_max, rel_max = 0, [], 0.0, 0.0
    for offset, (c, e, r) in zip(range(0, out.numel(), CHUNK), _chunks(out, exact, ref),
                                 strict=True):
        judged = torch.isfinite(e) & ~_same_overflow(c, r)
        err = torch.where(judged, (c - e).abs(), 0.0)
        wrong = judged & ~(err <= atol + rtol * e.abs())  # NaN in the candidate counts
        bad += int(wrong.sum())
        if len(first) < 3:
            first += (wrong.flatten().nonzero().flatten()[:3 - len(first)] + offset).tolist()
        err_max = max(err_max, _max(err))
        rel_max = max(rel_max, _max(err / torch.where(judged, e.abs(), 1.0).clamp_min(scale)))
    norm_e = s.e.value
    norm_rel = s.diff.value / norm_e if norm_e else float(err_max > 0)
    ref_norm_rel = s.ref.value / norm_e if norm_e else 0.0
    # A task's rtol override loosens the norm-wise bound too, never tightens it.
    norm_floor = max(NORM_FLOOR.get(dtype, 1e-5), tolerance.get("rtol", 0.0))
    norm_ok = norm_rel <= max(K_REF * ref_norm_rel, norm_floor)
    mismatches = bad + s.nonfinite
    ok = mismatches == 0 and norm_ok
    return CaseResult(
        shape, variant, ok=ok, max_abs=err_max, max_rel=rel_max, norm_rel=norm_rel,
        ref_norm_rel=ref_norm_rel, mismatches=mismatches, numel=out.numel(),
        problem="" if ok else _describe(out.shape, bad, first, s.nonfinite, norm_ok,
                                        norm_rel, atol, rtol))


CHUNK = 1 << 24  # elements per float64 chunk: ~8 chunks (1 GiB) resident while comparing


def _chunks(out, exact, ref):
    """(candidate, exact, ref) as float64 over the same CHUNK-element slices."""
    flat = [t.reshape(-1) for t in (out, exact, ref)]
    for start in range(0, flat[0].numel(), CHUNK):
        yield tuple(t[start:start + CHUNK].double() for t in flat)


class _Sums:
    """Over the finite positions of `exact`: the 2-norms of e, c-e and r-e, the largest
    |r-e|, their count; and the NaN/Inf positions where the candidate differs."""

    def __init__(self):
        self.e, self.diff, self.ref = _Norm(), _Norm(), _Norm()
        self.ref_err = 0.0
        self.finite = self.nonfinite = 0

    def first_pass(self, c, e, r) -> None:
        self.nonfinite += _nonfinite_mismatch(c, e)
        keep = torch.isfinite(e)
        c, e, r = c[keep], e[keep], r[keep]
        self.finite += e.numel()
        self.e.add(e)
        self.diff.add(torch.where(_same_overflow(c, r), 0.0, c - e))
        # the dtype reference's own error where it holds a number: where it overflowed (an
        # fp16 sum past 65504), |r - e| was infinite and so was the bound it gave, and an
        # output of zeros passed (found by a review); there the candidate must overflow as
        # it did (_same_overflow) or be right
        held = torch.isfinite(r)
        ref_err = (r[held] - e[held]).abs()
        self.ref.add(ref_err)
        self.ref_err = max(self.ref_err, _max(ref_err))


def _same_overflow(c: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """Where the reference in the task's dtype is ±Inf and the candidate's output is the same
    infinity: the dtype's own overflow, as eager's, not an error of the candidate's."""
    return torch.isinf(r) & (c == r)


class _Norm:
    """A 2-norm summed chunk by chunk as scale·sqrt(ssq), scale the largest magnitude so far
    (LAPACK's dnrm2 way). Squared as they are, values below 1e-154 underflow to 0 in float64:
    a cumulative product whose exact values were all near 1e-208 at the 64 positions a timed
    call is checked at had a norm of 0, and a right answer (torch's own) failed with relative
    error 1.0 (KernelBench 90 on the H100). An infinity makes the norm infinite, a NaN NaN (as
    the plain sums did: a bound of NaN or a norm of NaN fails the comparison)."""

    def __init__(self):
        self.scale, self.ssq = 0.0, 0.0

    def add(self, x: torch.Tensor) -> None:
        if not x.numel():
            return
        top = float(x.abs().max())  # NaN where x holds one
        if math.isnan(top) or math.isnan(self.scale):  # a bound of NaN holds nothing
            self.scale, self.ssq = math.nan, 1.0
        elif math.isinf(top):
            self.scale, self.ssq = math.inf, 1.0
        elif top > self.scale:
            self.ssq = self.ssq * (self.scale / top) ** 2 + float((x / top).pow(2).sum())
            self.scale = top
        elif top > 0:
            self.ssq += float((x / self.scale).pow(2).sum())

    @property
    def value(self) -> float:
        return self.scale * math.sqrt(self.ssq)


def _nonfinite_mismatch(c: torch.Tensor, e: torch.Tensor) -> int:
    """NaN and ±Inf must sit exactly where the reference has them."""
    ref_nan, ref_inf = torch.isnan(e), torch.isinf(e)
    wrong = (torch.isnan(c) != ref_nan) | (ref_inf & (c != e))
    return int(wrong.sum())


def _describe(shape, bad, first, nonfinite, norm_ok, norm_rel, atol, rtol) -> str:
    parts = []
    if nonfinite:
        parts.append(f"{nonfinite} NaN/Inf positions differ from the reference")
    if bad:
        where = ", ".join(str(tuple(int(i) for i in torch.unravel_index(torch.tensor(j),
                                                                          shape)))
                          for j in first)
        parts.append(f"{bad} of {torch.Size(shape).numel()} elements outside atol {atol:.2e} "
                     f"+ rtol {rtol:.0e}·|expected| (first at {where})")
    if not norm_ok:
        parts.append(f"relative error {norm_rel:.2e} too large")
    return "; ".join(parts)


def _max(x: torch.Tensor) -> float:
    return float(x.max()) if x.numel() else 0.0
