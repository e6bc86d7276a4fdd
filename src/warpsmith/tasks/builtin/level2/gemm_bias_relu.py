"""GEMM + bias + ReLU in strict fp32: nn.Linear followed by ReLU."""

import torch
import torch.nn as nn

BATCH = 4096
IN_FEATURES = 4096
OUT_FEATURES = 4096

SHAPES = {
    "small": {"BATCH": 37, "IN_FEATURES": 67, "OUT_FEATURES": 45},
    # 2*4096^3 = 137 GFLOP at ~51 TFLOP/s strict fp32: ~2.7 ms; ReLU adds 128 MiB of traffic.
    "gpu": {"BATCH": 4096, "IN_FEATURES": 4096, "OUT_FEATURES": 4096},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.linear(x))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES) * 1.5 + 0.05]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
