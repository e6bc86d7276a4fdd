"""Batched matmul + sum over the batch dimension (a split-K style reduction), strict fp32."""

import torch
import torch.nn as nn

BATCH = 8
M = 2048
K = 2048
N = 2048

SHAPES = {
    "small": {"BATCH": 3, "M": 37, "K": 67, "N": 45},
    # 2*8*2048^3 = 137 GFLOP at ~51 TFLOP/s strict fp32: ~2.7 ms; the 134 MB bmm result is
    # summed afterwards in eager.
    "gpu": {"BATCH": 8, "M": 2048, "K": 2048, "N": 2048},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, a, b):
        # a: (batch, m, k), b: (batch, k, n) -> (m, n)
        return torch.bmm(a, b).sum(dim=0)


def get_inputs():
    return [
        torch.randn(BATCH, M, K) * 1.5 + 0.05,
        torch.randn(BATCH, K, N) * 0.8 - 0.05,
    ]


def get_init_inputs():
    return []
