"""GEMM + bias + GELU in fp16: nn.Linear followed by exact (erf) GELU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 8192
IN_FEATURES = 8192
OUT_FEATURES = 8192

SHAPES = {
    "small": {"BATCH": 37, "IN_FEATURES": 67, "OUT_FEATURES": 45},
    # 2*8192^3 = 1.1 TFLOP (~1.6 ms at ~700 TFLOP/s); GELU re-reads 128 MiB: ~1.8 ms eager.
    "gpu": {"BATCH": 8192, "IN_FEATURES": 8192, "OUT_FEATURES": 8192},
}
DTYPE = "float16"


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return F.gelu(self.linear(x))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES) * 1.5 + 0.05]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
