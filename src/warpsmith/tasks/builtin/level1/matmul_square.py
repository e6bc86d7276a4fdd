"""Square matrix multiplication C = A @ B in strict fp32 (no TF32)."""

import torch
import torch.nn as nn

N = 4096

SHAPES = {
    "small": {"N": 67},
    # 2 * 4096^3 = 137 GFLOP at ~51 TFLOP/s strict fp32 ≈ 2.7 ms; 201 MB moved.
    "gpu": {"N": 4096},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(N, N) * 1.5 + 0.2, torch.randn(N, N) * 1.5 - 0.1]


def get_init_inputs():
    return []
