"""The reward formula (serve/shaping.py, docs/reward-service.md) on hand-built verdicts."""

import math

import pytest

from warpsmith.errors import UsageError
from warpsmith.serve import shaping
from warpsmith.serve.shaping import RewardConfig, shape_reward
from warpsmith.types import STATUSES, Verdict


def verdict(status="passed", timed=False, **fields) -> Verdict:
    return Verdict(status=status, task="level1/relu", candidate="c.py", device="cuda",
                   correct=status == "passed", timing_measured=timed, **fields)


def timed(vs_compile=None, vs_eager=None, roofline=None) -> Verdict:
    return verdict(timed=True, speedup_vs_compile=vs_compile, speedup_vs_eager=vs_eager,
                   roofline_fraction=roofline)


def test_every_status_has_a_gate():
    groups = (shaping.NOT_JUDGED, shaping.INVALID, shaping.ABSENT, shaping.FLAGGED,
              shaping.FAILED, shaping.CORRECT)
    every = set(STATUSES) | set(shaping.REWARD_STATUSES)
    assert set().union(*groups) == every
    assert sum(len(g) for g in groups) == len(every)  # and each in one group only


@pytest.mark.parametrize("status, gate, expected", [
    ("compile_error", "invalid", 0.0),
    ("rejected", "flagged", -0.5),
    ("suspect", "flagged", -0.5),
    ("incorrect", "failed", 0.1),
    ("runtime_error", "failed", 0.1),
    ("timeout", "failed", 0.1),
    ("crashed", "failed", 0.1),
])
def test_failures_earn_their_configured_value_and_no_speed(status, gate, expected):
    config = RewardConfig(incorrect=0.1, rejected=-0.5)
    parts = shape_reward(verdict(status, speedup_vs_compile=5.0), config)
    assert (parts.gate, parts.reward, parts.speed) == (gate, expected, None)


def test_needs_gpu_is_not_judged():
    parts = shape_reward(verdict("needs_gpu"))
    assert parts.reward is None and parts.gate == "not_judged"


def test_untimed_pass_earns_the_correctness_part_and_says_why():
    parts = shape_reward(verdict("passed"))
    assert parts.reward == 1.0 and parts.speed is None and not parts.timing_measured
    assert "timing not measured" in parts.note


@pytest.mark.parametrize("speedup, expected", [
    (1.0, 1.0), (2.0, 1.5), (1.5, 1 + 0.5 * math.log2(1.5)), (0.5, 0.5), (8.0, 1.5),
    (0.1, 0.5)])
def test_log2_speedup_vs_compile_is_clipped(speedup, expected):
    parts = shape_reward(timed(vs_compile=speedup, vs_eager=10 * speedup))
    assert parts.reward == pytest.approx(expected)
    assert parts.ratio == speedup


def test_linear_scale_eager_baseline_and_weight():
    config = RewardConfig(baseline="eager", scale="linear", lo=-0.5, hi=2.0, speed_weight=0.5)
    assert shape_reward(timed(vs_eager=1.8), config).reward == pytest.approx(1 + 0.5 * 0.8)
    assert shape_reward(timed(vs_eager=5.0), config).reward == pytest.approx(1 + 0.5 * 2.0)
    assert shape_reward(timed(vs_eager=0.2), config).reward == pytest.approx(1 - 0.5 * 0.5)


def test_roofline_fraction_never_earns_past_the_floor():
    config = RewardConfig(baseline="roofline", scale="linear", speed_weight=1.0)
    assert shape_reward(timed(roofline=0.75), config).reward == pytest.approx(0.75)
    assert shape_reward(timed(roofline=1.0), config).reward == pytest.approx(1.0)


def test_missing_baseline_gives_speed_zero_with_a_note():
    parts = shape_reward(timed(vs_eager=1.3), RewardConfig(baseline="roofline"))
    assert parts.reward == 1.0 and parts.speed == 0.0 and "no roofline baseline" in parts.note


def test_broken_ratio_earns_the_clip_floor_not_an_error():
    assert shape_reward(timed(vs_compile=0.0)).reward == 0.5
    assert shape_reward(timed(vs_compile=float("nan"))).speed == 0.0  # treated as missing


@pytest.mark.parametrize("fields, words", [
    ({"baseline": "cublas"}, "unknown baseline"),
    ({"scale": "sqrt"}, "unknown scale"),
    ({"lo": 1.0, "hi": 0.0}, "above hi"),
    ({"speed_weight": -1.0}, "must not be negative"),
    ({"incorrect": 0.6}, "slow correct kernel"),
    ({"hi": float("inf")}, "finite"),
])
def test_bad_configs_are_refused_with_the_reason(fields, words):
    with pytest.raises(UsageError, match=words):
        RewardConfig(**fields)
