"""FLOP and byte counts against hand-computed values."""

from pathlib import Path

import pytest

from warpsmith.tasks import count_cost, gpu_spec, load_task, resolve_task, roofline_floor

KB = Path(__file__).parent / "fixtures" / "kb_level1"


def test_square_matmul():
    cost = count_cost(load_task(KB / "1_Square_matrix_multiplication_.py"), "default")
    n = 64
    assert cost.matmul_flops == 2 * n**3
    assert cost.bytes == 3 * n * n * 4  # A and B read, C written, fp32


def test_conv2d():
    cost = count_cost(load_task(KB / "54_conv_standard_3D.py"), "default")
    out = 2 * 8 * 8 * 10  # N * C_out * H_out * W_out
    assert cost.matmul_flops == 2 * out * 3 * 3 * 3  # times C_in * kh * kw
    assert cost.bytes == 4 * (2 * 3 * 10 * 12 + 8 * 3 * 3 * 3 + out)


def test_softmax():
    cost = count_cost(load_task(KB / "23_Softmax.py"), "default")
    elements = 16 * 384
    assert cost.matmul_flops == 0
    assert cost.other_flops == 5 * elements  # max, subtract, exp, sum, divide
    assert cost.bytes == 2 * elements * 4


@pytest.mark.parametrize("name, causal", [("level1/sdpa", False), ("level1/sdpa_causal", True)])
def test_attention(name, causal):
    task = resolve_task(name)
    mod_values = task.shape("gpu").values
    b, h, s, d = (mod_values[k] for k in ("BATCH", "HEADS", "SEQ", "HEAD_DIM"))
    cost = count_cost(task, "gpu")
    full = 2 * b * h * s * s * d * 2  # Q·Kᵀ and P·V, 2 FLOPs per multiply-add
    assert cost.matmul_flops == (full // 2 if causal else full)
    assert cost.bytes == 4 * b * h * s * d * 2  # q, k, v read and out written, 16-bit


def test_linear_counts_parameters_as_bytes_read():
    cost = count_cost(resolve_task("level1/linear_fp16"), "small")
    assert cost.matmul_flops == 2 * 33 * 72 * 40
    assert cost.bytes == 2 * (33 * 72 + 72 * 40 + 40 + 33 * 40)


def test_floor_is_memory_bound_for_relu_and_matmul_bound_for_gemm():
    relu = resolve_task("level1/relu")
    floor = roofline_floor(count_cost(relu, "gpu"), relu, "H200")
    assert floor.bound == "memory"
    assert floor.seconds == pytest.approx(2 * 32768 * 16384 * 4 / 4.22e12)
    gemm = resolve_task("level1/linear_fp16")
    floor = roofline_floor(count_cost(gemm, "gpu"), gemm, "h200")
    assert floor.bound == "matmul"
    assert floor.seconds == pytest.approx(2 * 8192**3 / 701e12)


def test_strict_fp32_uses_the_non_tensor_rate():
    task = load_task(KB / "1_Square_matrix_multiplication_.py")
    floor = roofline_floor(count_cost(task, "default"), task, "A100")
    assert floor.parts["matmul"] == pytest.approx(2 * 64**3 / 19.5e12)
    assert gpu_spec("a100").bandwidth_tbs == 2.039


def test_uncountable_task_gets_no_floor(tmp_path):
    path = tmp_path / "fft.py"
    path.write_text(
        "import torch\nN = 8\nclass Model(torch.nn.Module):\n"
        "    def forward(self, x):\n        return torch.fft.fft(x).real\n"
        "def get_inputs():\n    return [torch.randn(N)]\ndef get_init_inputs():\n    return []\n")
    task = load_task(path)
    cost = count_cost(task, "default")
    assert not cost.countable and any("fft" in op for op in cost.uncounted_ops)
    assert roofline_floor(cost, task) is None
