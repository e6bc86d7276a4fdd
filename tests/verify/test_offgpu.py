"""verify/checks/offgpu.cuda_required: a CUDA-only runtime error on the CPU is needs_gpu only where
nothing of the candidate ran there first (E54: a kernel hard-coded to the declared sizes asked
for CUDA only on the secret twin and got needs_gpu, no penalty, instead of a failure)."""

from warpsmith.types import Verdict
from warpsmith.verify.checks import offgpu
from warpsmith.verify.worker_report import parse_report

SOURCE = "class ModelNew:\n    def forward(self, x):\n        torch.cuda.synchronize()\n"
ERROR = {"type": "AssertionError", "message": "Torch not compiled with CUDA enabled",
         "traceback": 'File "/job/code/candidate.py", line 3, in forward'}


def _verdict() -> Verdict:
    return Verdict(status="runtime_error", task="t", candidate="c.py", device="cpu")


def _status(report: dict, source: str, calls_done: int) -> str:
    return offgpu.cuda_required(_verdict(), parse_report(report, 0), source, calls_done).status


def test_cuda_missing_at_the_first_call_is_needs_gpu():
    report = {"stage": "forward", "built": 2, "error": ERROR}
    assert _status(report, SOURCE, 0) == "needs_gpu"


def test_cuda_missing_in_the_first_model_is_needs_gpu():
    report = {"stage": "init", "built": 0, "error": ERROR}
    assert _status(report, SOURCE, 0) == "needs_gpu"


def test_cuda_asked_for_after_calls_ran_stays_a_runtime_error():
    report = {"stage": "forward", "built": 2, "error": ERROR}
    assert _status(report, SOURCE, 4) == "runtime_error"


def test_cuda_asked_for_by_a_later_model_stays_a_runtime_error():
    report = {"stage": "init", "built": 1, "error": ERROR}
    assert _status(report, SOURCE, 0) == "runtime_error"


def test_a_message_alone_or_a_cuda_string_near_the_fault_is_no_ask_for_cuda():
    """Red-team round 7: a forward that raised "Found no NVIDIA driver" itself (no line of
    it asks for the GPU), and a verifier refusal raised at a launch that passes a "cuda"
    string, got needs_gpu (no penalty). The source's syntax tree decides now."""
    report = {"stage": "forward", "built": 2, "error": ERROR}
    plain = "class ModelNew:\n    def forward(self, x):\n        raise RuntimeError('x')\n"
    assert _status(report, plain, 0) == "runtime_error"
    launch = "class ModelNew:\n    def forward(self, x):\n        k[(1,)](x, T='cuda')\n"
    refused = {"type": "InterpreterError", "message": "OutOfBounds('out-of-bounds load')",
               "traceback": 'File "/job/code/candidate.py", line 3, in forward'}
    assert offgpu.cuda_required(_verdict(), parse_report({**report, "error": refused}, 0),
                                launch, 0).status == "runtime_error"


def test_cuda_asked_for_after_its_kernel_ran_on_the_cpu_stays_a_runtime_error():
    """E82: a constructor's self-test of the kernel on CPU tensors, then a request for the
    GPU only where the kernel was wrong: no call or model was done, but a kernel ran."""
    report = {"stage": "init", "built": 0, "launched": 1, "error": ERROR}
    assert _status(report, SOURCE, 0) == "runtime_error"
