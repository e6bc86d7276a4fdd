"""Verify honest candidates of tests/kernels/good on a GPU, one line per verdict as it comes:
status, wall, timed shape, speedup over eager, first reason, memory plan and peaks, stages.

    . benchmarks/gpu_env.sh; python3 benchmarks/honest_gpu.py [NAME ...]   (default: all)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from warpsmith.verify.pipeline import verify  # noqa: E402

GOOD = ROOT / "tests" / "kernels" / "good"


def task_of(path: Path) -> str:
    return next(line.split(":", 1)[1].strip() for line in path.read_text().splitlines()
                if line.startswith("# task:"))


def main(names: list[str]) -> None:
    paths = [GOOD / f"{n}.py" for n in names] if names else sorted(GOOD.glob("*.py"))
    for path in paths:
        start = time.perf_counter()
        v = verify(task_of(path), path, device="cuda", use_cache=False)
        stages = {k: round(x, 2) for k, x in v.stage_seconds.items()}
        print(path.stem, v.status, f"wall {time.perf_counter() - start:.1f}", v.timed_shape,
              v.speedup_vs_eager, (v.reasons or ("",))[0][:300], json.dumps(v.memory), stages,
              flush=True)
        if not v.passed:
            print(v.log_tail[-1500:], flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
