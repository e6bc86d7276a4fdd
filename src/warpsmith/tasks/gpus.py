"""GPU ceilings and the roofline floor: the least time any kernel can take for a task's work."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError
from ..types import Cost, Floor, Task

TERA = 1e12


@dataclass(frozen=True)
class GPUSpec:
    name: str
    bandwidth_tbs: float  # memory bandwidth, TB/s
    matrix_tflops: dict[str, float]  # dense tensor-core rate by operand precision
    vector_tflops: float  # fp32 rate without tensor cores (pointwise, strict fp32 products)
    source: str
    datasheet: GPUSpec | None = None  # peak figures where `self` holds measured ones
    # For prompts' hardware cards; None where not known, never guessed.
    arch: str = ""  # CUDA compute capability, e.g. "sm_90"
    sms: int | None = None
    smem_per_sm_kb: int | None = None  # shared memory per SM
    smem_per_block_kb: int | None = None  # the most one block can opt in to
    l2_mb: int | None = None
    memory_gb: int | None = None


# Dense (not sparse) rates. H200 holds figures measured on our machine (shared/MEASURED.md:
# copy bandwidth and do_bench matmul medians) with its datasheet peaks beside them: good
# kernels beat the measured cuBLAS rate (an eager bf16 MLP ran at ~750 TFLOP/s), so only the
# peak floor is a hard bound. The others are datasheet figures, optimistic for real kernels.
GPUS = {
    "A100": GPUSpec("A100", 2.039, {"float16": 312, "bfloat16": 312, "tf32": 156}, 19.5,
                    "datasheet, A100 SXM4 80GB", arch="sm_80", sms=108, smem_per_sm_kb=164,
                    smem_per_block_kb=163, l2_mb=40, memory_gb=80),
    "H100": GPUSpec("H100", 3.35, {"float16": 989, "bfloat16": 989, "tf32": 494}, 67.0,
                    "datasheet, H100 SXM5 80GB", arch="sm_90", sms=132, smem_per_sm_kb=228,
                    smem_per_block_kb=227, l2_mb=50, memory_gb=80),
    "H200": GPUSpec("H200", 4.22, {"float16": 701, "bfloat16": 701, "tf32": 363}, 51.0,
                    "measured on our H200: 1 GiB copy, 8192^3 matmuls (2026-11-30)",
                    GPUSpec("H200", 4.8, {"float16": 989, "bfloat16": 989, "tf32": 494}, 67.0,
                            "datasheet, H200 SXM 141GB"),
                    # SMs and L2 as torch reports them on our H200 (shared/MEASURED.md)
                    arch="sm_90", sms=132, smem_per_sm_kb=228, smem_per_block_kb=227,
                    l2_mb=60, memory_gb=141),
    "L40S": GPUSpec("L40S", 0.864, {"float16": 362, "bfloat16": 362, "tf32": 183}, 91.6,
                    "datasheet, L40S", arch="sm_89", sms=142, smem_per_sm_kb=100,
                    smem_per_block_kb=99, l2_mb=96, memory_gb=48),
    "B200": GPUSpec("B200", 8.0, {"float16": 2250, "bfloat16": 2250, "tf32": 1100}, 75.0,
                    "datasheet, HGX B200 per GPU", arch="sm_100", sms=148, smem_per_sm_kb=228,
                    smem_per_block_kb=227, memory_gb=180),
}
DEFAULT_GPU = "H200"


def gpu_spec(name: str) -> GPUSpec:
    key = name.upper()
    if key not in GPUS:
        raise UsageError(f"unknown GPU {name!r} (valid: {', '.join(GPUS)})")
    return GPUS[key]


def matrix_rate(spec: GPUSpec, task: Task) -> float:
    """TFLOP/s available to the task's products under its precision policy."""
    if task.dtype in spec.matrix_tflops:
        return spec.matrix_tflops[task.dtype]
    if task.allow_tf32:
        return spec.matrix_tflops["tf32"]
    return spec.vector_tflops  # strict fp32: no tensor cores


def roofline_floor(cost: Cost, task: Task, gpu: str | None = DEFAULT_GPU,
                   peak: bool = False) -> Floor | None:
    """None when the cost could not be counted or the GPU is not in the table: never guessed.

    The default floor uses the achievable (measured) ceilings, the yardstick for "fraction of
    the roofline"; `peak=True` uses datasheet peaks, a bound no honest timing can beat.
    """
    if not cost.countable or gpu is None:
        return None
    spec = gpu_spec(gpu)
    spec = (spec.datasheet or spec) if peak else spec
    parts = {
        "memory": cost.bytes / (spec.bandwidth_tbs * TERA),
        "matmul": cost.matmul_flops / (matrix_rate(spec, task) * TERA),
        "vector": cost.other_flops / (spec.vector_tflops * TERA),
    }
    bound = max(parts, key=parts.get)
    return Floor(gpu=spec.name, seconds=parts[bound], bound=bound, parts=parts)
