"""Hardware metrics for the judge: what a verified candidate did on the GPU.

Where Nsight Compute may read the counters, the candidate's forward runs once more under
`ncu` in its own process and about twenty curated metrics come back per kernel launch
(source "ncu"). Where it may not — no GPU, no `ncu` on PATH, no permission for the counters
(ERR_NVGPUCTRPERM, common in containers), a candidate that failed, or ncu itself failing —
the metrics are what the verdict and the task's counts say: time against the roofline floor,
memory- or compute-bound from the task's FLOPs and bytes, achieved bandwidth and FLOP rate
(source "roofline", with the reason). Either way the result is data, never an exception.

The numbers advise the judge; they decide nothing. A candidate could print lines that look
like ncu's, so the report is read from ncu's own log file, never from the candidate's output.

The profiled process is `python -m warpsmith.verify.child.once TASK_FILE CANDIDATE SHAPE`.
"""

from __future__ import annotations

import csv
import dataclasses
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..types import Task, Verdict
from ..verify.isolation import sandboxed

# Real Nsight Compute metric names (checked with `ncu --query-metrics` on our H200), chosen
# after CudaForge's 24 and KernelAgent's 28: enough to tell memory-, compute- and latency-bound
# apart and say why, few enough to collect in a handful of replay passes.
NCU_METRICS = (
    # time and speed of light: how near each ceiling the kernel ran
    "gpu__time_duration.sum",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    # caches
    "lts__t_sector_hit_rate.pct",
    "l1tex__t_sector_hit_rate.pct",
    # occupancy, and the launch that sets it
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__registers_per_thread",
    "launch__block_size",
    "launch__waves_per_multiprocessor",
    # issue and why warps wait
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
    "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct",
    "smsp__warp_issue_stalled_barrier_per_warp_active.pct",
    "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct",
    "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct",
    "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct",
    # shared memory, pipes, coalescing
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
)
NCU_TIMEOUT_S = 300.0
NO_PERMISSION = "ERR_NVGPUCTRPERM"
MAX_LOG_CHARS = 65536  # of the profiled process's own output: only read for ncu's errors


@dataclass(frozen=True)
class KernelMetrics:
    """One profiled kernel launch."""

    id: int
    name: str
    values: dict[str, float | None]  # metric -> value in `units`; None where ncu said n/a
    units: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HwMetrics:
    source: str  # "ncu" or "roofline"
    reason: str = ""  # why not ncu, when source is "roofline"
    kernels: tuple[KernelMetrics, ...] = ()
    roofline: dict = field(default_factory=dict)  # see roofline() below; both sources carry it

    def describe(self) -> str:
        """One line for notes and logs: which source, and why."""
        if self.source == "ncu":
            return f"ncu: {len(self.kernels)} kernel launch(es) profiled"
        return f"roofline ({self.reason})"

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def collect(task: Task, source: str, verdict: Verdict, gpu: str,
            timeout_s: float = NCU_TIMEOUT_S, visible: str | None = None) -> HwMetrics:
    """Metrics for `source`, the candidate `verdict` judged. `gpu` names the card whose
    ceilings the roofline uses when the verdict does not say which GPU it ran on; `visible`
    the GPU ncu profiles on (a CUDA_VISIBLE_DEVICES entry; None: the default)."""
    roof = roofline(task, verdict, gpu)
    why = why_not_ncu(verdict)
    if not why:
        shape = verdict.timed_shape or task.shapes[-1].name
        kernels, why = run_ncu(task, source, shape, timeout_s, visible)
        if not why:
            return HwMetrics("ncu", kernels=kernels, roofline=roof)
    return HwMetrics("roofline", reason=why, roofline=roof)


def why_not_ncu(verdict: Verdict) -> str:
    """Why ncu cannot or should not run for this verdict; "" when it may."""
    if verdict.device != "cuda":
        return "no GPU"
    if not verdict.passed:  # profiling a wrong kernel would optimise the wrong thing
        return f"the candidate did not pass verification ({verdict.status})"
    if shutil.which("ncu") is None:
        return "ncu is not on PATH"
    return ""


# --- the roofline fallback (and the context ncu numbers are read against) ---

def roofline(task: Task, verdict: Verdict, gpu: str) -> dict:
    """What the verdict's timing and the task's FLOP and byte counts say, in plain numbers."""
    from ..tasks.counting import count_cost
    from ..tasks.gpus import gpu_spec, matrix_rate, roofline_floor

    shape = verdict.timed_shape or task.shapes[-1].name
    gpu = _gpu_of(verdict) or gpu
    try:
        cost = count_cost(task, shape)
    except Exception as e:  # a task the counter cannot trace still gets a judge
        return {"gpu": gpu, "shape": shape, "error": f"{type(e).__name__}: {e}"}
    spec, floor = gpu_spec(gpu), roofline_floor(cost, task, gpu)
    rate = matrix_rate(spec, task) if cost.matmul_flops else spec.vector_tflops
    out = {"gpu": spec.name, "shape": shape, "flops": cost.flops,
           "matmul_flops": cost.matmul_flops, "bytes": cost.bytes,
           "uncounted_ops": list(cost.uncounted_ops),
           "intensity_flop_per_byte": cost.flops / cost.bytes if cost.bytes else None,
           # below this intensity the memory system, not arithmetic, sets the floor
           "ridge_flop_per_byte": rate / spec.bandwidth_tbs,
           "bound": floor.bound if floor else None,
           "floor_us": verdict.floor_us or (floor.seconds * 1e6 if floor else None),
           "bandwidth_tbs": spec.bandwidth_tbs, "rate_tflops": rate}
    return out | _achieved(out, verdict)


def _achieved(roof: dict, verdict: Verdict) -> dict:
    """Rates the timed candidate reached; nothing when it was not timed."""
    time_us = candidate_time_us(verdict)
    if not time_us:
        return {"timed": False}
    tbs, tflops = roof["bytes"] / time_us / 1e6, roof["flops"] / time_us / 1e6
    fraction = verdict.roofline_fraction or (roof["floor_us"] / time_us
                                             if roof["floor_us"] else None)
    return {"timed": True, "time_us": time_us, "fraction_of_floor": fraction,
            "achieved_tbs": tbs, "achieved_tflops": tflops,
            "pct_of_bandwidth": 100 * tbs / roof["bandwidth_tbs"],
            "pct_of_rate": 100 * tflops / roof["rate_tflops"]}


def candidate_time_us(verdict: Verdict) -> float | None:
    if not verdict.timing_measured:
        return None
    return next((t.median_us for t in verdict.timings if t.name == "candidate"), None)


def _gpu_of(verdict: Verdict) -> str | None:
    """The table's name for the GPU the verdict ran on, when it ran on one we know."""
    from ..verify.timing.summary import gpu_key

    name = verdict.environment.get("gpu")
    return gpu_key(name) if name else None


# --- Nsight Compute ---

def ncu_command(ncu: str, task: Task, candidate: Path, shape: str, log: Path) -> list[str]:
    # --clock-control none: leave the clocks as the verifier timed them (H200.md, METHOD.md).
    # --profile-from-start off: only the one forward between cudaProfilerStart and Stop is
    # profiled, not the warm-up that compiles, nor building the inputs.
    # --print-units base: no auto-scaling, so a value's unit is the same in every report.
    return [ncu, "--clock-control", "none", "--profile-from-start", "off", "--csv",
            "--print-units", "base", "--metrics", ",".join(NCU_METRICS), "--log-file", str(log),
            sys.executable, "-m", "warpsmith.verify.child.once", str(task.path), str(candidate),
            shape]


def run_ncu(task: Task, source: str, shape: str, timeout_s: float = NCU_TIMEOUT_S,
            visible: str | None = None) -> tuple[tuple[KernelMetrics, ...], str]:
    """(kernels, "") when ncu profiled the candidate, else ((), why not). ncu and the
    candidate's process run in the verifier's sandbox (verify/isolation/jail.py), as a job of its
    own: the candidate's code runs nowhere else. Where the sandbox's uid may not read the
    GPU's counters, ncu says so and the judge falls back to its estimates."""
    from ..config import worker_environment

    with tempfile.TemporaryDirectory(prefix="warpsmith-ncu-") as tmp, \
            tempfile.TemporaryDirectory(prefix="warpsmith-ncu-cwd-") as cwd:
        tmp_path = Path(tmp)
        candidate, log, output = tmp_path / "candidate.py", tmp_path / "ncu.csv", tmp_path / "out"
        candidate.write_text(source)
        ncu = shutil.which("ncu") or "ncu"
        command = ncu_command(ncu, task, candidate, shape, log)
        returncode = sandboxed.run(command, output, (Path(cwd), tmp_path),
                          worker_environment("cuda", visible), timeout_s,
                          readonly=[task.path, *sandboxed.install_of(ncu)])
        report = log.read_text(errors="replace") if log.exists() else ""
        printed = sandboxed.tail(output, MAX_LOG_CHARS)
    if returncode is None:
        return (), f"ncu timed out after {timeout_s:.0f} s"
    return interpret(report, printed, returncode)


def interpret(report: str, printed: str, returncode: int) -> tuple[tuple[KernelMetrics, ...],
                                                                     str]:
    """ncu's log and the process's output as (kernels, why not): ncu reports a refused
    permission in its log and may still exit 0, so the text decides, not the exit code."""
    if NO_PERMISSION in report or NO_PERMISSION in printed:
        return (), ("ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM: "
                    "profiling needs admin rights or a host setting)")
    kernels = parse_ncu_csv(report)
    if kernels:
        return kernels, ""
    errors = [line for line in (report + "\n" + printed).splitlines() if "==ERROR==" in line]
    if errors:
        return (), "ncu failed: " + " / ".join(e.replace("==ERROR==", "").strip()
                                               for e in errors[:3])
    if returncode != 0:
        last = [line for line in printed.strip().splitlines() if line.strip()][-3:]
        return (), f"ncu exited with code {returncode}: " + " / ".join(last)
    return (), "ncu profiled no kernel (the forward launched none between start and stop)"


def parse_ncu_csv(text: str) -> tuple[KernelMetrics, ...]:
    """ncu's `--csv` report of `--metrics` (one row per launch and metric, columns "ID",
    "Kernel Name", "Metric Name", "Metric Unit", "Metric Value" among others), with its
    ==PROF== lines and anything else that is not CSV skipped. Values lose their thousands
    separators; "n/a" becomes None."""
    rows = csv.reader(line for line in text.splitlines() if line.startswith('"'))
    header: list[str] | None = None
    launches: dict[int, KernelMetrics] = {}
    for row in rows:
        if "Metric Name" in row and "ID" in row:
            header = row
            continue
        if header is None or len(row) < len(header):
            continue
        record = dict(zip(header, row, strict=False))
        launch = _launch(launches, record)
        if launch is not None:
            launch.values[record["Metric Name"]] = _number(record.get("Metric Value", ""))
            launch.units[record["Metric Name"]] = record.get("Metric Unit", "")
    return tuple(launches[k] for k in sorted(launches))


def _launch(launches: dict[int, KernelMetrics], record: dict) -> KernelMetrics | None:
    try:
        key = int(record["ID"])
    except (KeyError, ValueError):
        return None
    if key not in launches:
        launches[key] = KernelMetrics(key, record.get("Kernel Name", ""), {}, {})
    return launches[key]


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None  # "n/a": the metric does not apply to this kernel or chip
