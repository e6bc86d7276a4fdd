"""The comparison rule on hand-made outputs (docs/verifier.md, layer 4), and the cases it is
applied to."""

from dataclasses import replace
from pathlib import Path

import pytest
import torch

from warpsmith.config import PROFILES
from warpsmith.errors import TaskError
from warpsmith.tasks import load_task, resolve_task
from warpsmith.verify.checks.correctness import compare
from warpsmith.verify.checks.inputs import case_inputs, is_checked
from warpsmith.verify.checks.reference import DECOYS, checked, prepare, secret_order


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


def test_exact_values_beyond_float32s_range_are_compared_without_underflow():
    """A cumulative product's exact values near 1e-208 (KernelBench 90's checked positions):
    their squares underflow in float64, and the norm of the exact values was 0, so torch's own
    float32 answer (0 there) failed with relative error 1.0. Scaled, the candidate is held to
    what the reference's own rounding does; a value far from both still fails."""
    exact = torch.tensor([1e-208, 7e-224, 3e-210, 5e-318], dtype=torch.float64)
    ref = exact.float()  # all 0: float32 cannot hold them
    result = compare(ref.clone(), exact, ref, "s", "timing")
    assert result.ok, result.problem
    assert not compare(torch.full_like(ref, 1e-30), exact, ref, "s", "timing").ok
    big = torch.tensor([1e200, -3e199, 2e201], dtype=torch.float64)  # squares overflow
    assert compare(big.clone(), big, big.clone(), "s", "base").ok
    assert not compare(big * 1.5, big, big.clone(), "s", "base").ok
    exact, ref = _pair(torch.float32)
    ref[5] = float("nan")  # the dtype reference's own error unknown there: no bound from it
    assert compare(exact.float(), exact, ref, "s", "base").ok  # right everywhere
    assert not compare(torch.zeros_like(ref), exact, ref, "s", "base").ok


def test_where_the_dtypes_reference_overflows_the_candidate_must_too_or_be_right():
    """An fp16 reference past 65504 is Inf where the exact value is finite: its own error,
    and the bound made from it, were infinite, and an output of zeros passed."""
    exact = torch.tensor([1.0, -2.0, 7.0e4, 3.0, 0.5], dtype=torch.float64)
    ref = exact.half()
    assert torch.isinf(ref[2])
    assert compare(ref.clone(), exact, ref, "s", "base").ok  # overflows as eager does
    zeros = compare(torch.zeros_like(ref), exact, ref, "s", "base")
    assert not zeros.ok
    wrong_inf = ref.clone()
    wrong_inf[2] = float("-inf")
    assert not compare(wrong_inf, exact, ref, "s", "base").ok
    off = ref.clone()
    off[0] = 100.0  # the rest still held (atol follows the RMS, 7e4 / sqrt(5) here)
    assert not compare(off, exact, ref, "s", "base").ok


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


# The cases the trusted side checks (verify/checks/reference.py) and how the worker reports them.

KB = Path(__file__).parent.parent / "tasks" / "fixtures" / "kb_semantics"
QUICK = PROFILES["quick"]


def _variants(prepared) -> list[str]:
    return [c.variant for c in checked(prepared.cases)]


def test_one_signed_inputs_get_a_mixed_sign_variant_in_the_quick_profile():
    task = load_task(KB / "19_ReLU.py")  # torch.rand: never negative
    prepared = prepare(task, ["default"], QUICK, "cpu")
    mixed = [c for c in checked(prepared.cases) if c.variant == "mixed"]
    assert mixed  # one, and on the CPU perhaps extra calls of the same kind
    for case in mixed:
        x = case_inputs(task, "default", "cpu", case.seed, "mixed")[0]
        assert x.min() < -1 and x.max() > 1  # both signs, and beyond HardTanh's clamps


def test_inputs_with_both_signs_or_declared_nonnegative_get_no_mixed_call():
    assert "mixed" not in _variants(prepare(resolve_task("level1/relu"), ["small"], QUICK,
                                            "cpu"))
    task = replace(load_task(KB / "19_ReLU.py"), nonnegative_inputs=(0,))
    assert "mixed" not in _variants(prepare(task, ["default"], QUICK, "cpu"))


def test_every_model_gets_a_secret_number_of_extra_calls_all_of_them_checked():
    """A kernel that counts its calls cannot know how many are left, and none of its calls
    goes unchecked (a kernel wrong on its first call passed when that call was a decoy)."""
    from warpsmith.verify.checks.reference import Case

    cases = [Case("a", v, seed, [], []) for seed, v in enumerate(["base", "scaled", "mixed"])]
    cases += [Case("b", "base", 7, [], [])]
    orders, counts = set(), set()
    for _ in range(40):
        order = secret_order(cases, decoys={"a"})
        orders.add(tuple((c.shape, c.variant, c.seed) for c in order))
        a = [c for c in order if c.shape == "a"]
        assert all(is_checked(c.variant) for c in order)
        assert len([c for c in order if c.shape == "b"]) == 1  # not a decoy shape
        counts.add(len(a) - 3)
        assert DECOYS[0] <= len(a) - 3 <= DECOYS[1]
        assert {c.variant for c in a} == {"base", "scaled", "mixed"}
        assert len({c.seed for c in a}) == len(a)  # each extra call from a fresh seed
    assert len(orders) > 1 and len(counts) > 1  # drawn anew each run
    assert len(secret_order(cases, decoys=set())) == len(cases)  # a GPU run: none


def test_a_profile_without_decoys_checks_only_the_planned_calls():
    """What the library's tests verify with (config.VerifyProfile.decoys = (0, 0))."""
    task = resolve_task("level1/softmax")
    plain = prepare(task, ["small"], replace(QUICK, decoys=(0, 0)), "cpu")
    usual = prepare(task, ["small"], QUICK, "cpu")
    extra = len(checked(usual.cases)) - len(checked(plain.cases))
    assert DECOYS[0] <= extra <= DECOYS[1]
    assert {(c.shape, c.variant) for c in checked(plain.cases)} == \
        {(c.shape, c.variant) for c in checked(usual.cases)}


def test_every_call_of_a_cpu_run_is_checked():
    cases = prepare(resolve_task("level1/softmax"), ["small"], QUICK, "cpu").cases
    assert cases and all(is_checked(c.variant) for c in cases)


def test_a_reference_with_active_dropout_is_reported_not_switched_to_eval(tmp_path):
    task = load_task(KB / "66_Matmul_Dropout.py")
    with pytest.raises(TaskError, match="not deterministic.*training mode.*MODE = \"eval\""):
        prepare(task, ["default"], QUICK, "cpu")
    declared = tmp_path / "dropout_eval.py"
    declared.write_text(task.source + '\nMODE = "eval"\n')
    assert checked(prepare(load_task(declared), ["default"], QUICK, "cpu").cases)


def test_the_candidate_starts_from_the_references_state_before_any_training_call():
    task = load_task(KB / "33_BatchNorm.py")
    prepared = prepare(task, ["default"], QUICK, "cpu")
    spec = prepared.shapes["default"]
    assert spec["mode"] is None and prepared.models["default"].training
    # the default statistics (zeros) get secret values (reference.vary_constants, E14); the
    # candidate's copy is taken before the reference's first training call moved them
    given = spec["state_dict"]["bn.running_mean"]
    assert not torch.equal(given, torch.zeros(5))
    assert not torch.equal(prepared.models["default"].bn.running_mean, given)
