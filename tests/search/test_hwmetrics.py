"""Hardware metrics for the judge: the roofline fallback for real on the CPU, ncu's CSV report
as ncu prints it, how ncu's failures become reasons, and (marked gpu) the real ncu path."""
# ruff: noqa: E501 (the ncu report below keeps ncu's own long lines, byte for byte)

import shutil
from pathlib import Path

import pytest
import torch

from warpsmith.prompts.judge import metrics_section
from warpsmith.search.hwmetrics import (
    NCU_METRICS,
    HwMetrics,
    collect,
    interpret,
    parse_ncu_csv,
    roofline,
    why_not_ncu,
)
from warpsmith.tasks.suite import resolve_task
from warpsmith.types import Timing, Verdict
from warpsmith.verify.pipeline import verify

KERNELS = Path(__file__).parents[1] / "kernels"
GOOD = KERNELS / "good" / "relu_triton.py"
RELU_BYTES = 2 * 32768 * 16384 * 4  # the gpu shape's input read and output written, fp32

# What `ncu --clock-control none --profile-from-start off --csv --print-units base --metrics …`
# (Nsight Compute 2025.3.1) wrote to --log-file for tests/kernels/good/relu_triton.py on our
# H200, byte for byte, trimmed to 7 of its 25 metric rows: the ==WARNING==/==PROF== lines,
# one row per launch and metric, thousands separators, an empty unit for counts.
NCU_CSV = '''\
==WARNING== Note: Running with unmodified GPU clocks. If not controlled otherwise, profiling results may be inconsistent.
==PROF== Connected to process 642 (/usr/bin/python3.12)
==PROF== Disconnected from process 642
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","642","python3.12","127.0.0.1","relu_kernel","1","7","(128, 1, 1)","(2097152, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","2,147,507,200"
"0","642","python3.12","127.0.0.1","relu_kernel","1","7","(128, 1, 1)","(2097152, 1, 1)","0","9.0","Command line profiler metrics","dram__throughput.avg.pct_of_peak_sustained_elapsed","%","69.67"
"0","642","python3.12","127.0.0.1","relu_kernel","1","7","(128, 1, 1)","(2097152, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","1,275,168"
"0","642","python3.12","127.0.0.1","relu_kernel","1","7","(128, 1, 1)","(2097152, 1, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","0"
"0","642","python3.12","127.0.0.1","relu_kernel","1","7","(128, 1, 1)","(2097152, 1, 1)","0","9.0","Command line profiler metrics","launch__registers_per_thread","register/thread","16"
"0","642","python3.12","127.0.0.1","relu_kernel","1","7","(128, 1, 1)","(2097152, 1, 1)","0","9.0","Command line profiler metrics","sm__warps_active.avg.pct_of_peak_sustained_active","%","49.86"
"0","642","python3.12","127.0.0.1","relu_kernel","1","7","(128, 1, 1)","(2097152, 1, 1)","0","9.0","Command line profiler metrics","smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct","%","85.75"
'''
# A second launch in the same format: the report has one row per launch and metric.
DURATION_ROW = next(row for row in NCU_CSV.splitlines() if "gpu__time_duration" in row)
SECOND_LAUNCH = DURATION_ROW.replace('"0","642"', '"1","642"').replace(
    '"relu_kernel"', '"add_kernel"').replace('"1,275,168"', '"3,904"') + "\n"


def timed_verdict(time_us: float, status: str = "passed") -> Verdict:
    return Verdict(status, "level1/relu", "c.py", "cuda", correct=status == "passed",
                   timing_measured=True, timed_shape="gpu",
                   timings=(Timing("candidate", time_us, time_us, time_us, 1.0, 25),
                            Timing("eager", 2 * time_us, 2 * time_us, 2 * time_us, 1.0, 25)),
                   environment={"gpu": "NVIDIA H200"})


def test_on_the_cpu_the_fallback_says_no_gpu_and_classifies_the_work():
    task = resolve_task("level1/relu")
    verdict = verify(task, GOOD, device="cpu")
    assert verdict.passed and not verdict.timing_measured
    metrics = collect(task, GOOD.read_text(), verdict, "H200")
    assert (metrics.source, metrics.reason, metrics.kernels) == ("roofline", "no GPU", ())
    roof = metrics.roofline
    assert roof["shape"] == "gpu" and roof["bytes"] == RELU_BYTES and roof["bound"] == "memory"
    assert roof["intensity_flop_per_byte"] == pytest.approx(1 / 8)  # one max per 8 bytes
    assert roof["intensity_flop_per_byte"] < roof["ridge_flop_per_byte"]
    assert roof["timed"] is False and "time_us" not in roof
    assert metrics.describe() == "roofline (no GPU)"


def test_a_timed_verdict_gives_achieved_bandwidth_against_the_floor():
    task = resolve_task("level1/relu")
    roof = roofline(task, timed_verdict(2000.0), "B200")  # the verdict's own GPU wins
    assert roof["gpu"] == "H200" and roof["bandwidth_tbs"] == 4.22
    assert roof["floor_us"] == pytest.approx(RELU_BYTES / 4.22e6)
    assert roof["achieved_tbs"] == pytest.approx(RELU_BYTES / 2000 / 1e6)
    assert roof["pct_of_bandwidth"] == pytest.approx(100 * RELU_BYTES / 2000e6 / 4.22)
    assert roof["fraction_of_floor"] == pytest.approx(roof["floor_us"] / 2000)
    shown = metrics_section(HwMetrics("roofline", "ncu is not on PATH", roofline=roof).as_dict())
    assert "source: roofline (fallback: ncu is not on PATH)" in shown
    assert "memory-bound" in shown and "took 2 ms (51% of the floor" in shown
    assert "achieved 2.15 TB/s = 51% of 4.22 TB/s" in shown


def test_reasons_ncu_is_not_used(monkeypatch, tmp_path):
    assert why_not_ncu(Verdict("passed", "t", "c.py", "cpu")) == "no GPU"
    failed = why_not_ncu(timed_verdict(10.0, status="incorrect"))
    assert "did not pass verification (incorrect)" in failed
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no ncu on it
    assert why_not_ncu(timed_verdict(10.0)) == "ncu is not on PATH"


def test_ncu_csv_is_read_per_launch():
    first, second = parse_ncu_csv(NCU_CSV + SECOND_LAUNCH)
    assert (first.id, first.name, second.id, second.name) == (0, "relu_kernel", 1, "add_kernel")
    assert first.values["dram__bytes_read.sum"] == 2_147_507_200
    assert first.values["gpu__time_duration.sum"] == 1_275_168
    assert first.units["gpu__time_duration.sum"] == "ns"
    assert first.values["launch__registers_per_thread"] == 16
    assert first.values["smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct"] == 85.75
    assert first.units["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == ""
    assert len(first.values) == 7 and second.values == {"gpu__time_duration.sum": 3904}
    na = DURATION_ROW.replace('"1,275,168"', '"n/a"')
    assert parse_ncu_csv(NCU_CSV.split('"0"')[0] + na)[0].values == {
        "gpu__time_duration.sum": None}  # ncu's n/a: the metric does not apply
    shown = metrics_section(HwMetrics("ncu", kernels=(second, first),
                                      roofline={"error": "not counted"}).as_dict())
    assert "source: ncu" in shown and "DRAM throughput, % of peak: 69.67%" in shown
    assert "DRAM bytes read: 2.15 GB" in shown and "duration: 1.28 ms" in shown
    assert "warps stalled on global/local memory (long scoreboard): 85.75%" in shown
    assert shown.index("relu_kernel") < shown.index("add_kernel")  # longest launch first


def test_ncu_failures_become_reasons():
    denied = ("==PROF== Connected to process 77 (/usr/bin/python3)\n==ERROR== ERR_NVGPUCTRPERM - "
              "The user does not have permission to access NVIDIA GPU Performance Counters on "
              "the target device 0. For instructions on enabling permissions and to get more "
              "information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n")
    kernels, why = interpret(denied, "", 0)
    assert kernels == () and "ERR_NVGPUCTRPERM" in why
    kernels, why = interpret("==ERROR== Failed to find metric foo__bar.sum\n", "", 1)
    assert why == "ncu failed: Failed to find metric foo__bar.sum"
    assert "no kernel" in interpret("==PROF== Disconnected from process 77\n", "", 0)[1]
    assert interpret("", "Traceback …\nRuntimeError: CUDA error", 1)[1].startswith(
        "ncu exited with code 1")
    assert interpret(NCU_CSV, "", 0)[1] == ""


def test_the_curated_list_is_about_twenty_distinct_metrics():
    assert 18 <= len(NCU_METRICS) <= 28 and len(set(NCU_METRICS)) == len(NCU_METRICS)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.skipif(shutil.which("ncu") is None, reason="needs Nsight Compute (ncu) on PATH")
def test_ncu_profiles_a_verified_kernel_on_the_gpu():
    task = resolve_task("level1/relu")
    verdict = verify(task, GOOD, device="cuda")
    assert verdict.passed and verdict.timing_measured, verdict.feedback
    metrics = collect(task, GOOD.read_text(), verdict, "H200")
    if "ERR_NVGPUCTRPERM" in metrics.reason:
        pytest.skip(metrics.reason)
    assert metrics.source == "ncu", metrics.reason
    (kernel,) = [k for k in metrics.kernels if k.name == "relu_kernel"]
    assert set(kernel.values) == set(NCU_METRICS)
    assert kernel.values["gpu__time_duration.sum"] > 0
    assert kernel.values["dram__bytes_read.sum"] >= RELU_BYTES / 2 * 0.9
    assert metrics.roofline["timed"] and metrics.roofline["gpu"] == "H200"


def test_ncu_and_the_candidate_run_in_the_sandbox(monkeypatch, tmp_path):
    """The profiler's process tree is a sandboxed job like the verifier's worker: its own PID
    namespace, the job's environment, the task bound in read-only (a stand-in ncu reports
    where it ran, through the log the real one writes)."""
    from warpsmith.search.hwmetrics import run_ncu
    from warpsmith.verify.isolation import jail

    if not jail.current().ok:
        pytest.skip(f"no OS sandbox here: {jail.current().detail}")
    fake = tmp_path / "bin" / "ncu"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\nlog=""; task=""\n'
                    'while [ $# -gt 0 ]; do [ "$1" = "--log-file" ] && log=$2\n'
                    '  case "$1" in *.py) [ -z "$task" ] && task=$1;; esac; shift; done\n'
                    'echo "==ERROR== pid=$$ home=$HOME task=$(test -r "$task" && echo read)" > "$log"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{__import__('os').environ['PATH']}")
    kernels, why = run_ncu(resolve_task("level1/relu"), GOOD.read_text(), "small", timeout_s=60)
    assert kernels == () and why.startswith("ncu failed: pid="), why
    fields = dict(f.split("=", 1) for f in why.removeprefix("ncu failed: ").split())
    assert int(fields["pid"]) < 20 and fields["home"] == "/tmp" and fields["task"] == "read"
