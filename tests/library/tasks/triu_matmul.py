"""torch.triu(A @ B) of upper triangular matrices, as KernelBench's 14."""

import torch
import torch.nn as nn

N = 70
SHAPES = {"small": {"N": 70}}


class Model(nn.Module):
    def forward(self, A, B):
        return torch.triu(torch.matmul(A, B))


def get_inputs():
    return [torch.triu(torch.rand(N, N)), torch.triu(torch.rand(N, N))]


def get_init_inputs():
    return []
