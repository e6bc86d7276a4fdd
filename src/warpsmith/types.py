"""Plain frozen records that cross module and process boundaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


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
