"""Tall-skinny matrix multiplication (M >> K >> N) in strict fp32."""

import torch
import torch.nn as nn

M = 262144
K = 2048
N = 64

SHAPES = {
    "small": {"M": 131, "K": 37, "N": 9},
    # 2*M*K*N = 68.7 GFLOP (~1.4 ms at 51 TFLOP/s); A alone is 2.1 GB (~0.5 ms); 1.7 ms measured.
    "gpu": {"M": 262144, "K": 2048, "N": 64},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K) * 1.5 + 0.2, torch.randn(K, N) * 1.5 - 0.1]


def get_init_inputs():
    return []
