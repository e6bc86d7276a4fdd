"""A (N, M, K) tensor times a (K, L) matrix, as KernelBench's 10."""

import torch
import torch.nn as nn

N = 3
M = 21
K = 40
L = 19
SHAPES = {"small": {"N": 3, "M": 21, "K": 40, "L": 19}}


class Model(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.rand(N, M, K), torch.rand(K, L)]


def get_init_inputs():
    return []
