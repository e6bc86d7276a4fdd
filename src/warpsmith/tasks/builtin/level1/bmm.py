"""Batched matrix multiplication torch.bmm in strict fp32."""

import torch
import torch.nn as nn

BATCH = 64
M = 1024
K = 1024
N = 1024

SHAPES = {
    "small": {"BATCH": 3, "M": 37, "K": 29, "N": 41},
    # 2*B*M*K*N = 137 GFLOP at ~51 TFLOP/s ≈ 2.7 ms; 805 MB moved.
    "gpu": {"BATCH": 64, "M": 1024, "K": 1024, "N": 1024},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(BATCH, M, K) * 1.5 + 0.2, torch.randn(BATCH, K, N) * 1.5 - 0.1]


def get_init_inputs():
    return []
