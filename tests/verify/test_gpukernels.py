"""The profiler-based rules (what executed on the GPU, and who carried the time), on records
shaped as the worker sends them; the GPU run of tests/kernels/gpu shows them on real kernels."""

from warpsmith.verify.checks.gpukernels import is_own, kernel_names, problems
from warpsmith.verify.child import integrity
from warpsmith.verify.child.gpukernels import by_name

TRITON = '''
import triton
@triton.jit
def relu_kernel(x, y, n, B: tl.constexpr):
    pass
'''
CUDA = 'src = r"""__global__ void __launch_bounds__(256) scale_k(float* x) {}"""'


def test_kernel_names_come_from_jit_functions_and_cuda_globals():
    assert kernel_names(TRITON) == {"relu_kernel"}
    assert kernel_names(CUDA) == {"scale_k"}


def test_library_kernels_are_never_the_candidates_even_with_an_imitated_name():
    assert is_own("void scale_k<float>(float*)", {"scale_k"})
    assert not is_own("void at::native::vectorized_elementwise_kernel<4>(int)",
                      {"vectorized_elementwise_kernel"})
    assert not is_own("relu_kernel_2", {"relu_kernel"})


def test_own_kernel_carrying_the_time_passes():
    calls = [[["relu_kernel", 100.0], ["Memcpy DtoD (Device -> Device)", 90.0],
              ["void at::native::vectorized_elementwise_kernel<FillFunctor<float>>", 80.0]]]
    assert problems(calls, {"relu_kernel"}, expected=1) == []


def test_no_own_kernel_executed_is_a_reject():
    calls = [[["relu_kernel", 5.0]], [["void at::native::clamp_kernel", 100.0]]]
    assert problems(calls, {"relu_kernel"}, expected=2)[0][0] == "no-kernel-ran"


def test_decoy_kernel_beside_library_work_is_a_reject():
    calls = [[["relu_kernel", 5.0], ["void at::native::clamp_kernel", 100.0]]]
    assert problems(calls, {"relu_kernel"}, expected=1)[0][0] == "kernel-time-share"


def test_a_missing_profiler_record_is_a_reject():
    assert problems([], {"relu_kernel"}, expected=3)[0][0] == "no-kernel-ran"


def test_integrity_notices_a_replaced_timer(monkeypatch):
    import torch

    before = integrity.snapshot()
    assert integrity.changed(before) == []
    monkeypatch.setattr(torch.cuda.Event, "elapsed_time", lambda self, end: 0.001)
    assert integrity.changed(before) == ["Event.elapsed_time"]


def test_a_calls_kernels_are_summed_by_name_so_autotuning_keeps_the_report_small():
    """An autotuned first call ran each config hundreds of times: one entry a launch made an
    honest report of over 1 MiB (crashed on the H200). Sums by name keep what problems()
    judges: the names, in the order they first ran, and each one's share of the time."""
    runs = [("relu_kernel", 2.0), ("at::fill", 1.0)] * 50_000 + [("copy", 5.0)]
    kernels = by_name(runs)
    assert kernels == [["relu_kernel", 100_000.0], ["at::fill", 50_000.0], ["copy", 5.0]]
    assert problems([kernels], {"relu_kernel"}, 1) == problems([[list(r) for r in runs]],
                                                                {"relu_kernel"}, 1) == []
    cuda_heavy = by_name([("relu_kernel", 1.0), ("at::fill", 3.0)] * 1000)
    assert problems([cuda_heavy], {"relu_kernel"}, 1)[0][0] == "kernel-time-share"
