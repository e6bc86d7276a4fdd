"""A task means what its file says (issue 30): each input, parameter and buffer keeps the dtype
its file gives it unless the file declares warpsmith's DTYPE; `tasks show` says what runs and
names every conversion."""

import json
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from warpsmith.cli.main import cli
from warpsmith.tasks import load_task, resolve_task
from warpsmith.tasks.loader import build, build_model, upcast
from warpsmith.verify import pipeline

FIXTURES = Path(__file__).parent / "fixtures"
CANDIDATE = FIXTURES / "models" / "rmsnorm_fp32_cast_triton.py"
COMPLEX_DTYPE = '''
import torch
import torch.nn as nn

DTYPE = "float16"
n = 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("rot", torch.polar(torch.ones(n), torch.arange(n) * 0.3))

    def forward(self, x):
        return torch.view_as_real(x.float() * self.rot).sum(-1).to(x.dtype)


def get_inputs():
    return [torch.randn(4, n)]


def get_init_inputs():
    return []
'''


def _held(model) -> dict[str, torch.dtype]:
    return {n: t.dtype for n, t in list(model.named_parameters()) + list(model.named_buffers())}


def test_a_bf16_file_with_no_extras_runs_in_bf16():
    task = resolve_task("models/swiglu_mlp")
    inst = build(task, "default")
    assert task.dtype == "bfloat16" and inst.inputs[0].dtype == torch.bfloat16
    assert set(_held(inst.model).values()) == {torch.bfloat16}
    assert inst.model(*inst.inputs).dtype == torch.bfloat16


def test_mixed_inputs_keep_their_dtypes():
    task = resolve_task("models/residual_add_rmsnorm_fp32")
    inst = build(task, "default", device="meta")
    assert [x.dtype for x in inst.inputs] == [torch.bfloat16, torch.float32]
    assert task.dtype == "bfloat16"  # the narrowest: the roofline's and the reference's


def test_a_complex_buffer_keeps_its_imaginary_part():
    task = resolve_task("models/rope_interleaved_complex")
    model = build(task, "default").model
    assert model.freqs_cis.dtype == torch.complex64 and model.freqs_cis.imag.abs().max() > 0.5


def test_the_exact_copy_of_a_complex_buffer_is_still_the_reference():
    """upcast, unlike Module.to(float64), keeps the imaginary part: the float64 copy agrees
    with the reference to bf16's rounding, not to an error that would widen the tolerance."""
    task = resolve_task("models/rope_interleaved_complex")
    inst = build(task, "default", seed=3)
    exact = build_model(task, "default", seed=3)
    exact.load_state_dict(inst.model.state_dict())
    exact = upcast(exact, torch.float64)
    assert exact.freqs_cis.dtype == torch.complex128
    with torch.no_grad():
        ref = inst.model(*inst.inputs)
        high = exact(*[upcast(x, torch.float64) for x in inst.inputs])
    for r, h in zip(ref, high, strict=True):
        assert (r.double() - h).abs().max() < 0.05


def test_dtype_casts_floating_tensors_only_and_keeps_complex_ones(tmp_path):
    path = tmp_path / "rot.py"
    path.write_text(COMPLEX_DTYPE)
    inst = build(load_task(path), "default")
    assert inst.inputs[0].dtype == torch.float16 and inst.model.rot.dtype == torch.complex64


def test_a_kernelbench_file_keeps_float32():
    task = load_task(FIXTURES / "kernelbench" / "level1" / "1_ReLU.py")
    assert task.dtype == "float32"
    assert build(task, "default", device="meta").inputs[0].dtype == torch.float32


def test_tasks_show_says_what_runs_and_names_each_conversion():
    runner = CliRunner()
    kept = json.loads(runner.invoke(cli, ["tasks", "show", "models/residual_add_rmsnorm_fp32",
                                          "--json", "--no-check"]).output)
    assert kept["precision"] == "as written" and kept["conversions"] == []
    assert kept["shapes"][0]["inputs"] == ["2×32×96 bfloat16", "2×32×96 float32"]
    assert kept["shapes"][0]["held"] == ["96 bfloat16"]
    cast = runner.invoke(cli, ["tasks", "show", "level1/linear_fp16", "--no-source",
                               "--no-check"])
    assert cast.exit_code == 0
    text = " ".join(cast.output.split())
    assert "the file's DTYPE casts every floating tensor to it" in text
    assert "converted input 0: the file makes float32, it runs as float16" in text
    assert "converted parameter linear.weight" in text


@pytest.mark.slow
def test_a_bf16_suite_task_is_verified_in_bf16(tmp_path):
    """An honest bf16 Triton kernel passes on the CPU interpreter; the same kernel handing
    back float32 fails on the dtype, so the check ran in bf16."""
    verdict = pipeline.verify("models/rmsnorm_fp32_cast", CANDIDATE, device="cpu",
                              use_cache=False)
    assert verdict.status == "passed", verdict.reasons
    widened = tmp_path / "widened.py"
    widened.write_text(CANDIDATE.read_text().replace("        return out\n",
                                                     "        return out.float()\n"))
    verdict = pipeline.verify("models/rmsnorm_fp32_cast", widened, device="cpu",
                              use_cache=False)
    assert verdict.status == "incorrect"
    assert "expected torch.bfloat16" in " ".join(c.problem for c in verdict.cases)


def test_complex_outputs_are_compared_by_parts_within_their_tolerance():
    from warpsmith.verify.checks.correctness import compare

    exact = torch.randn(64, dtype=torch.complex128)
    ref = exact.to(torch.complex64)
    assert compare(ref * (1 + 1e-6), exact, ref, "s", "base").ok  # was: exact equality
    assert not compare(ref.conj().resolve_conj(), exact, ref, "s", "base").ok
