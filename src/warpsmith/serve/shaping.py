"""The reward service's reward: a pure function of a Verdict and a RewardConfig.

    reward = None                              needs_gpu, too_large: not judged here (drop
                                               the sample)
    reward = 0                                 compile_error: no kernel to judge
    reward = config.no_code                    no_code: a completion with no code in it
                                               (0 by default; never verified)
    reward = config.rejected                   rejected or suspect: a rule or a plausibility
                                               gate caught it (0 by default; < 0 punishes)
    reward = config.incorrect                  runtime_error, incorrect, timeout, crashed
    reward = config.correct                    passed, timing not measured (CPU interpreter)
    reward = config.correct + config.speed_weight × clip(g(ratio), lo, hi)     passed and timed

ratio is the candidate against the chosen baseline, higher is better: speedup over
torch.compile ("compile", the default: research/verification.md recommends scoring against
compile or the roofline rather than eager), over eager PyTorch ("eager"), or the fraction of the
roofline floor reached ("roofline", at most 1). g is log2(ratio) ("log2", the default: a 2×
win and a 2× loss weigh the same) or ratio − 1 ("linear"); both are 0 at parity. With the
defaults (correct 1, speed_weight 0.5, lo −1, hi 1) a correct kernel earns 0.5 at half the
baseline's speed or slower, 1 at parity and 1.5 at twice its speed or faster: most first
attempts are slower than torch.compile, so the term must still grade them, while the clip keeps
a lucky measurement from dominating a batch (TritonRL clips at 2×). A timed verdict whose
baseline is missing (no compile time, an op without a FLOP count) gets speed part 0, and says
so in `note`. A configuration under which a slow correct kernel would earn less than a wrong
one (correct + speed_weight × lo < incorrect or rejected) is refused.

The gates are multiplicative in effect: nothing but a passed verdict reaches the speed part, so
a fast wrong kernel earns no more than any other wrong one. docs/reward-service.md has the table.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..errors import UsageError
from ..types import Verdict

BASELINES = ("compile", "eager", "roofline")
SCALES = ("log2", "linear")

# Statuses the reward side gives itself, never the verifier: a completion (a model's raw
# answer) in which extraction (prompts/extract.py) found no candidate. Kept apart from
# compile_error so a trainer can tell "wrote no code" from "wrote code that does not build".
NO_CODE = "no_code"
REWARD_STATUSES = (NO_CODE,)

# Every verdict status, by what it means for the reward; test_shaping checks nothing is missing.
NOT_JUDGED = frozenset({"needs_gpu", "too_large"})
INVALID = frozenset({"compile_error"})
ABSENT = frozenset({NO_CODE})
FLAGGED = frozenset({"rejected", "suspect"})
FAILED = frozenset({"runtime_error", "incorrect", "timeout", "crashed"})
CORRECT = frozenset({"passed"})


@dataclass(frozen=True)
class RewardConfig:
    baseline: str = "compile"
    scale: str = "log2"
    lo: float = -1.0  # clip of the speed term g(ratio)
    hi: float = 1.0
    correct: float = 1.0  # what a passed verdict earns before its speed part
    incorrect: float = 0.0  # it built and ran but failed: a small value rewards compiling
    rejected: float = 0.0  # caught by a rule or a gate
    speed_weight: float = 0.5
    no_code: float = 0.0  # a completion with no code in it; < 0 punishes answering in prose

    def __post_init__(self) -> None:
        problem = config_problem(self)
        if problem:
            raise UsageError(problem)


def config_problem(c: RewardConfig) -> str | None:
    if c.baseline not in BASELINES:
        return f"unknown baseline {c.baseline!r} (valid: {', '.join(BASELINES)})"
    if c.scale not in SCALES:
        return f"unknown scale {c.scale!r} (valid: {', '.join(SCALES)})"
    values = (c.lo, c.hi, c.correct, c.incorrect, c.rejected, c.speed_weight, c.no_code)
    if not all(math.isfinite(v) for v in values):
        return "every reward setting must be a finite number"
    if c.lo > c.hi:
        return f"lo ({c.lo}) is above hi ({c.hi})"
    if c.speed_weight < 0:
        return "speed_weight must not be negative: faster would earn less"
    if c.correct + c.speed_weight * c.lo < max(c.incorrect, c.rejected, c.no_code):
        # a slow correct kernel would earn less than a wrong one: a shaping bug, not a choice
        return ("correct + speed_weight × lo is below incorrect, rejected or no_code: a slow "
                "correct kernel would earn less than a wrong one")
    return None


@dataclass(frozen=True)
class RewardParts:
    reward: float | None  # None: the verdict could not be judged here
    gate: str  # "not_judged", "invalid", "absent", "flagged", "failed", "correct"
    correctness: float  # the part the gates decide
    speed: float | None  # speed_weight × clipped term; None when timing was not measured
    ratio: float | None  # the raw ratio against the baseline, before g and the clip
    baseline: str
    timing_measured: bool
    note: str

    def as_dict(self) -> dict:
        return asdict(self)


def shape_reward(verdict: Verdict, config: RewardConfig | None = None) -> RewardParts:
    config = config or RewardConfig()
    gate = gate_of(verdict.status)
    if gate != "correct":
        return _gated(verdict, gate, config)
    if not verdict.timing_measured:
        return _parts(verdict, config, config.correct, "correct", None, None,
                      "timing not measured (CPU interpreter): the correctness part only")
    ratio = baseline_ratio(verdict, config.baseline)
    if ratio is None:
        return _parts(verdict, config, config.correct, "correct", 0.0, None,
                      f"no {config.baseline} baseline for this verdict: speed part 0")
    speed = config.speed_weight * speed_term(ratio, config)
    return _parts(verdict, config, config.correct, "correct", speed, ratio, "")


def gate_of(status: str) -> str:
    for gate, members in (("not_judged", NOT_JUDGED), ("invalid", INVALID), ("absent", ABSENT),
                          ("flagged", FLAGGED), ("failed", FAILED), ("correct", CORRECT)):
        if status in members:
            return gate
    # a status added to types.STATUSES without a decision here: never reward it
    return "invalid"


def _gated(verdict: Verdict, gate: str, config: RewardConfig) -> RewardParts:
    if gate == "not_judged":
        return RewardParts(None, gate, 0.0, None, None, config.baseline,
                           verdict.timing_measured, f"{verdict.status}: not judged here")
    value = {"invalid": 0.0, "absent": config.no_code, "flagged": config.rejected,
             "failed": config.incorrect}[gate]
    return _parts(verdict, config, value, gate, None, None, "")


def _parts(verdict, config, correctness, gate, speed, ratio, note) -> RewardParts:
    reward = correctness + (speed or 0.0)
    return RewardParts(reward, gate, correctness, speed, ratio, config.baseline,
                       verdict.timing_measured, note)


def baseline_ratio(verdict: Verdict, baseline: str) -> float | None:
    ratio = {"compile": verdict.speedup_vs_compile, "eager": verdict.speedup_vs_eager,
             "roofline": verdict.roofline_fraction}[baseline]
    return ratio if ratio is not None and math.isfinite(ratio) else None


def speed_term(ratio: float, config: RewardConfig) -> float:
    if ratio <= 0:  # a broken measurement earns the floor of the clip, never a math error
        return config.lo
    raw = math.log2(ratio) if config.scale == "log2" else ratio - 1.0
    return min(max(raw, config.lo), config.hi)

