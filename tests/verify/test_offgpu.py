"""verify/offgpu.cuda_required: a CUDA-only runtime error on the CPU is needs_gpu only where
nothing of the candidate ran there first (E54: a kernel hard-coded to the declared sizes asked
for CUDA only on the secret twin and got needs_gpu, no penalty, instead of a failure)."""

from warpsmith.types import Verdict
from warpsmith.verify import offgpu

SOURCE = "class ModelNew:\n    def forward(self, x):\n        torch.cuda.synchronize()\n"
ERROR = {"type": "AssertionError", "message": "Torch not compiled with CUDA enabled",
         "traceback": 'File "/job/code/candidate.py", line 3, in forward'}


def _verdict() -> Verdict:
    return Verdict(status="runtime_error", task="t", candidate="c.py", device="cpu")


def test_cuda_missing_at_the_first_call_is_needs_gpu():
    report = {"stage": "forward", "built": 2, "error": ERROR}
    assert offgpu.cuda_required(_verdict(), report, SOURCE, 0).status == "needs_gpu"


def test_cuda_missing_in_the_first_model_is_needs_gpu():
    report = {"stage": "init", "built": 0, "error": ERROR}
    assert offgpu.cuda_required(_verdict(), report, SOURCE, 0).status == "needs_gpu"


def test_cuda_asked_for_after_calls_ran_stays_a_runtime_error():
    report = {"stage": "forward", "built": 2, "error": ERROR}
    assert offgpu.cuda_required(_verdict(), report, SOURCE, 4).status == "runtime_error"


def test_cuda_asked_for_by_a_later_model_stays_a_runtime_error():
    report = {"stage": "init", "built": 1, "error": ERROR}
    assert offgpu.cuda_required(_verdict(), report, SOURCE, 0).status == "runtime_error"
