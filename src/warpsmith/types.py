"""Plain frozen records that cross module and process boundaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# A task from outside the built-in suite is named NAME@DIGEST (tasks.suite.stored_name): the
# store keys verdicts, bench items and searches by name, and two folders' relu.py must stay
# apart there. People read the part before the mark.
NAME_MARK = "@"


def readable_task_name(name: str) -> str:
    """'relu@1a2b3c4d' -> 'relu'; a built-in name as it is."""
    return name.split(NAME_MARK, 1)[0]


@dataclass(frozen=True)
class Shape:
    name: str
    values: dict[str, Any]  # module-level constant -> value for this shape


@dataclass(frozen=True)
class Task:
    name: str  # "level1/relu" for suite members, the file stem otherwise
    path: Path
    description: str
    shapes: tuple[Shape, ...]
    dtype: str = "float32"
    allow_tf32: bool = False
    tolerance: dict[str, float] | None = None
    allowed_torch: tuple[str, ...] = ()
    nonnegative_inputs: tuple[int, ...] = ()
    level: str | None = None

    @property
    def title(self) -> str:
        """The name people read (and the file names made for it): without the digest."""
        return readable_task_name(self.name)

    def shape(self, name: str) -> Shape:
        for shape in self.shapes:
            if shape.name == name:
                return shape
        valid = ", ".join(s.name for s in self.shapes)
        raise KeyError(f"task {self.name} has no shape {name!r} (valid: {valid})")

    @property
    def source(self) -> str:
        return self.path.read_text()


@dataclass(frozen=True)
class Cost:
    """What one call of a task's reference must do, at one shape."""

    matmul_flops: int  # products and convolutions: the work tensor cores can take
    other_flops: int  # pointwise and reduction work
    bytes: int  # every input and parameter read once, every output written once
    uncounted_ops: tuple[str, ...] = ()  # ops without a FLOP rule; non-empty means no floor

    @property
    def flops(self) -> int:
        return self.matmul_flops + self.other_flops

    @property
    def countable(self) -> bool:
        return not self.uncounted_ops


@dataclass(frozen=True)
class Floor:
    gpu: str
    seconds: float
    bound: str  # "memory", "matmul" or "vector": which limit sets the floor
    parts: dict[str, float] = field(default_factory=dict)


# "suspect" (implausibly fast, held for review) was last given by verifier 10; stored
# verdicts may still carry it. Since 11 such a result is measured again and flagged.
STATUSES = ("passed", "suspect", "compile_error", "runtime_error", "incorrect", "rejected",
            "timeout", "crashed", "needs_gpu", "too_large")


@dataclass(frozen=True)
class CaseResult:
    """How one candidate call compared with the reference."""

    shape: str
    variant: str  # "base", "scaled", "shifted", "heavy", or "timed" for a timed call
    ok: bool
    max_abs: float | None = None
    max_rel: float | None = None
    norm_rel: float | None = None  # ‖out − exact‖ / ‖exact‖
    ref_norm_rel: float | None = None  # the same for the reference in the task's dtype
    mismatches: int = 0
    numel: int = 0
    problem: str = ""  # why it failed, in words


@dataclass(frozen=True)
class Timing:
    """GPU times of one implementation, in microseconds, over all interleaved blocks."""

    name: str  # "candidate", "eager", "compile", "compile:max-autotune-no-cudagraphs"
    median_us: float
    min_us: float
    max_us: float
    iqr_us: float
    calls: int


@dataclass(frozen=True)
class Verdict:
    status: str
    task: str
    candidate: str
    device: str
    correct: bool = False
    reasons: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()  # ids of the static or dynamic rules that fired
    warnings: tuple[str, ...] = ()
    cases: tuple[CaseResult, ...] = ()
    shapes_checked: tuple[str, ...] = ()
    shapes_skipped: tuple[str, ...] = ()
    timing_measured: bool = False
    timings: tuple[Timing, ...] = ()
    timed_shape: str | None = None
    speedup_vs_eager: float | None = None
    speedup_vs_compile: float | None = None
    floor_us: float | None = None  # from achievable (measured) ceilings
    peak_floor_us: float | None = None  # from datasheet peaks: a hard lower bound
    roofline_fraction: float | None = None
    kernels_launched: tuple[str, ...] = ()
    stage_seconds: dict[str, float] = field(default_factory=dict)
    # GiB: the memory plan's estimate and budget, and the peaks each side allocated
    memory: dict[str, float] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    feedback: str = ""
    log_tail: str = ""
    cache_key: str = ""
    cached: bool = False

    @property
    def passed(self) -> bool:
        return self.status == "passed"
