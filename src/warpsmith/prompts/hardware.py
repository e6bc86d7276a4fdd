"""The hardware card: the target GPU's limits from tasks/gpus.py, as a prompt section."""

from __future__ import annotations

from ..tasks.gpus import DEFAULT_GPU, GPUSpec, gpu_spec
from . import templates

# Matrix-rate keys as a kernel writer names them.
PRECISION_NAMES = {"float16": "fp16", "bfloat16": "bf16", "tf32": "tf32"}


def hardware_card(gpu: str = DEFAULT_GPU) -> str:
    spec = gpu_spec(gpu)
    peak = spec.datasheet
    card = templates.HARDWARE.format(
        name=spec.name, arch=spec.arch or "architecture n/a", sms=_known(spec.sms),
        smem_sm=_kb(spec.smem_per_sm_kb), smem_block=_kb(spec.smem_per_block_kb),
        l2=_known(spec.l2_mb, " MB"), memory=_known(spec.memory_gb, " GB"),
        bandwidth=_rate(spec.bandwidth_tbs, peak and peak.bandwidth_tbs, "TB/s"),
        matrix=_matrix_rates(spec),
        vector=_rate(spec.vector_tflops, peak and peak.vector_tflops, "TFLOP/s"))
    return card + ("\n" + templates.HARDWARE_MEASURED if peak else "")


def _matrix_rates(spec: GPUSpec) -> str:
    peak = spec.datasheet
    parts = []
    for key, rate in spec.matrix_tflops.items():
        peak_rate = peak.matrix_tflops.get(key) if peak else None
        parts.append(f"{PRECISION_NAMES.get(key, key)} "
                     f"{_rate(rate, peak_rate, 'TFLOP/s')}")
    return ", ".join(parts)


def _rate(value: float, peak: float | None, unit: str) -> str:
    if peak is None:  # the table holds datasheet figures for this GPU
        return f"{value:g} {unit} (datasheet)"
    return f"{value:g} {unit} measured ({peak:g} {unit} datasheet peak)"


def _kb(value: int | None) -> str:
    return _known(value, " KB")


def _known(value, unit: str = "") -> str:
    return "n/a" if value is None else f"{value}{unit}"
