"""Rectangular matrix multiplication C = A @ B in fp16."""

import torch
import torch.nn as nn

M = 16384
K = 4096
N = 8192

SHAPES = {
    "small": {"M": 67, "K": 129, "N": 37},
    # 2*M*K*N = 1.1 TFLOP at ~700 TFLOP/s ≈ 1.6 ms; 470 MB moved.
    "gpu": {"M": 16384, "K": 4096, "N": 8192},
}
DTYPE = "float16"


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K) * 1.5 + 0.2, torch.randn(K, N) * 1.5 - 0.1]


def get_init_inputs():
    return []
