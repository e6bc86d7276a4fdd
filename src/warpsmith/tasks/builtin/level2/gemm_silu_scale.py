"""GEMM (no bias) + SiLU + multiplication by a constant scaling factor, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 16384
IN_FEATURES = 4096
OUT_FEATURES = 8192
SCALING_FACTOR = 1.75

SHAPES = {
    "small": {"BATCH": 37, "IN_FEATURES": 67, "OUT_FEATURES": 45},
    # 2*16384*4096*8192 = 1.1 TFLOP (~1.6 ms); SiLU and scale re-read 256 MiB twice: ~1.9 ms eager.
    "gpu": {"BATCH": 16384, "IN_FEATURES": 4096, "OUT_FEATURES": 8192},
}
DTYPE = "bfloat16"


class Model(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=False)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        return F.silu(self.linear(x)) * self.scaling_factor


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES) * 1.5 + 0.05]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES, SCALING_FACTOR]
