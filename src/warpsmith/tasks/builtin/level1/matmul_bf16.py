"""Square matrix multiplication C = A @ B in bf16."""

import torch
import torch.nn as nn

N = 8192

SHAPES = {
    "small": {"N": 97},
    # 2 * 8192^3 = 1.1 TFLOP at ~700 TFLOP/s ≈ 1.6 ms; 403 MB moved.
    "gpu": {"N": 8192},
}
DTYPE = "bfloat16"


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(N, N) * 1.5 + 0.2, torch.randn(N, N) * 1.5 - 0.1]


def get_init_inputs():
    return []
