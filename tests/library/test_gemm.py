"""GEMM with a fused epilogue (library/gemm.py): a product and the pointwise chain after it in
one kernel; what follows that a tile cannot finish (row reductions, another product) in more
kernels of the same file. Every twin under tasks/ (small shapes of KernelBench level-2 GEMM
tasks, in KernelBench format) passes the verifier on the CPU interpreter.
"""

import textwrap
from pathlib import Path

import pytest

from warpsmith.library import Generated, coverage, generate
from warpsmith.tasks import load_task
from warpsmith.tasks.suite import load_suite
from warpsmith.types import readable_task_name

from .conftest import twin_jobs

TIMEOUT_S = 180  # the verifier's limit for one candidate (conftest.verdicts)
OWN = Path(__file__).parent / "tasks"
ROOT = Path(__file__).parents[2]
LEVEL2 = next((p for p in (ROOT / "KernelBench" / "KernelBench" / "level2",
                           ROOT / "KernelBench" / "level2") if p.is_dir()), None)

# twin task -> (the family label, kernels in the candidate)
TWINS = {
    "gemm_sub_mul_relu": ("gemm", 1), "gemm_residual": ("gemm", 1),
    "gemm_bias_relu": ("gemm", 1), "gemm_min_sub": ("gemm", 1),
    "bmm_transposed": ("gemm", 1), "gemm_fp16_gelu": ("gemm", 1),
    "gemm_divide_sum": ("gemm+row_reduce", 2), "gemm_gelu_softmax": ("gemm+row_reduce", 2),
    "gemm_lse_mish": ("gemm+row_reduce", 2), "two_gemms_lse": ("gemm+row_reduce", 3),
    "gemm_instance_norm": ("gemm+row_reduce", 2), "gemm_max_sub_gelu": ("gemm+row_reduce", 2),
    "gemm_mean_lse_residual": ("gemm+row_reduce", 2),
    "gemm_group_norm": ("gemm+row_reduce", 2), "gemm_group_norm_swish": ("gemm+row_reduce", 2),
    "gemm_swish_group_norm": ("gemm+row_reduce", 2),
    "gemm_maxpool_sum": ("gemm+row_reduce", 3), "gemm_avgpool_max": ("gemm+row_reduce", 3),
    # BatchNorm1d in training mode: batch statistics, a column reduction over the batch
    "gemm_batch_norm_train": ("gemm+row_reduce", 2),
    "gemm_batch_norm_softmax": ("gemm+row_reduce", 3),
}
# built-in level-2 tasks the GEMM family now covers
BUILTIN = ["level2/bmm_sum", "level2/gemm_bias_relu", "level2/gemm_bias_gelu_fp16"]
# 16×16×16 tiles in groups of 2: several tiles each way, K in several steps, the grouped
# order's last short group
SMALL_TILES = {"GEMM_BLOCK_M": 16, "GEMM_BLOCK_N": 16, "GEMM_BLOCK_K": 16, "GEMM_GROUP_M": 2,
               "GEMM_WARPS": 2}
TILED = ["gemm_sub_mul_relu", "bmm_transposed", "two_gemms_lse", "gemm_group_norm_swish"]


def verify_jobs() -> dict:
    return twin_jobs(TWINS, BUILTIN, dict.fromkeys(TILED, SMALL_TILES))


@pytest.mark.parametrize("stem", sorted(TWINS))
def test_twin_is_covered_by_the_gemm_family(stem):
    made = generate(OWN / f"{stem}.py")
    assert isinstance(made, Generated), made
    assert (made.family, made.kernels) == TWINS[stem]


@pytest.mark.parametrize("stem", sorted(TWINS) + BUILTIN + [f"tiled/{s}" for s in TILED])
def test_twin_candidate_passes_on_the_cpu(stem, verdicts):
    status, feedback = verdicts[stem]
    assert status == "passed", feedback


def test_epilogue_is_fused_and_the_weight_read_in_place():
    source = generate(OWN / "gemm_sub_mul_relu.py").source
    # one kernel: bias, subtract, multiply and relu on the accumulator, one store
    assert source.count("@triton.jit") == 1 and source.count("tl.store(") == 1
    assert "acc + ep_p_linear_bias" in source and "tl.maximum(" in source
    assert "self.linear.weight.t()" in source and ".contiguous()" not in source
    assert 'input_precision="ieee"' in source  # strict fp32: no TF32


def test_fp16_dot_takes_no_precision_and_stores_fp16():
    source = generate(OWN / "gemm_fp16_gelu.py").source
    assert "input_precision" not in source and "dtype=torch.float16" in source


def test_knobs_are_the_gemm_tile():
    made = generate(OWN / "gemm_divide_sum.py", tune={"GEMM_BLOCK_N": 32})
    assert made.tune["GEMM_BLOCK_N"] == 32 and "\nGEMM_BLOCK_N = 32\n" in made.source
    assert {"GEMM_BLOCK_M", "GEMM_BLOCK_K", "GEMM_GROUP_M", "GEMM_WARPS", "GEMM_STAGES",
            "RED_BLOCK_R"} <= set(made.tune)


def _task(tmp_path, body: str, dtype: str):
    path = tmp_path / "task.py"
    path.write_text(textwrap.dedent(f'''
        import torch
        import torch.nn as nn

        DTYPE = "{dtype}"

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 16)

            def forward(self, x):
                {body}


        def get_inputs():
            return [torch.randn(4, 8)]


        def get_init_inputs():
            return []
        '''))
    return load_task(path)


def test_a_reduction_before_the_product_is_placed_by_the_graph_families(tmp_path):
    # x / x.sum(-1): a row kernel writes the operand, its name suffixed, then the product
    result = generate(_task(tmp_path, "return self.fc(x / x.sum(-1, keepdim=True))", "float32"))
    assert isinstance(result, Generated), result
    assert "row_kernel_pro0" in result.source and "gemm_kernel" in result.source


def test_a_pointwise_prologue_is_its_own_kernel_before_the_product(tmp_path):
    result = generate(_task(tmp_path, "return self.fc(torch.relu(x))", "float32"))
    assert isinstance(result, Generated), result
    assert result.kernels == 2 and "pointwise_kernel_pro0[" in result.source


# the level-2 GEMM tasks the generator covers, 35 of 37 (66: dropout; 75: GroupNorm, min)
LEVEL2_GEMM = [
    "9_Matmul_Subtract_Multiply_ReLU", "12_Gemm_Multiply_LeakyReLU", "33_Gemm_Scale_BatchNorm",
    "39_Gemm_Scale_BatchNorm", "41_Gemm_BatchNorm_GELU_ReLU", "84_Gemm_BatchNorm_Scaling_Softmax",
    "97_Matmul_BatchNorm_BiasAdd_Divide_Swish",
    "14_Gemm_Divide_Sum_Scaling", "18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp",
    "22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish",
    "28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply", "29_Matmul_Mish_Mish",
    "30_Gemm_GroupNorm_Hardtanh", "37_Matmul_Swish_Sum_GroupNorm",
    "40_Matmul_Scaling_ResidualAdd", "45_Gemm_Sigmoid_LogSumExp",
    "51_Gemm_Subtract_GlobalAvgPool_LogSumExp_GELU_ResidualAdd",
    "53_Gemm_Scaling_Hardtanh_GELU", "55_Matmul_MaxPool_Sum_Scale", "56_Matmul_Sigmoid_Sum",
    "59_Matmul_Swish_Scaling",
    "62_Matmul_GroupNorm_LeakyReLU_Sum",
    "63_Gemm_ReLU_Divide", "64_Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU",
    "68_Matmul_Min_Subtract", "70_Gemm_Sigmoid_Scaling_ResidualAdd", "76_Gemm_Add_ReLU",
    "80_Gemm_Max_Subtract_GELU", "81_Gemm_Swish_Divide_Clamp_Tanh_Clamp",
    "86_Matmul_Divide_GELU", "88_Gemm_GroupNorm_Swish_Multiply_Swish",
    "94_Gemm_BiasAdd_Hardtanh_Mish_GroupNorm", "95_Matmul_Add_Swish_Tanh_GELU_Hardtanh",
    "98_Matmul_AvgPool_GELU_Scale_Max", "99_Matmul_GELU_Softmax",
]


@pytest.mark.skipif(LEVEL2 is None, reason="no KernelBench checkout under KernelBench/")
def test_kernelbench_level2_gemm_coverage():
    tasks, _ = load_suite(str(LEVEL2))
    rows = {readable_task_name(r.task): r for r in coverage(tasks)}  # NAME@digest
    for name in LEVEL2_GEMM:
        assert rows[name].family and rows[name].family.startswith("gemm"), rows[name].reason
    # the official sizes render too (nothing is compiled)
    for task in tasks:
        if task.title in LEVEL2_GEMM:
            assert "gemm_kernel[grid](" in generate(task).source
