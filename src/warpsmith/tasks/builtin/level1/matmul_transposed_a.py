"""Matrix multiplication with a transposed first operand, C = A.T @ B, in strict fp32."""

import torch
import torch.nn as nn

M = 4096
K = 3072
N = 4096

SHAPES = {
    "small": {"M": 67, "K": 37, "N": 45},
    # A is (K, M), B is (K, N): 2*M*K*N = 103 GFLOP at ~51 TFLOP/s ≈ 2 ms; 168 MB moved.
    "gpu": {"M": 4096, "K": 3072, "N": 4096},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a.T, b)


def get_inputs():
    return [torch.randn(K, M) * 1.5 + 0.2, torch.randn(K, N) * 1.5 - 0.1]


def get_init_inputs():
    return []
