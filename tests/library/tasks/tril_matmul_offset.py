"""torch.tril(A @ B, diagonal=-2) of lower triangular matrices (KernelBench's 15 keeps the
diagonal; an offset one exercises the tile test)."""

import torch
import torch.nn as nn

N = 70
SHAPES = {"small": {"N": 70}}


class Model(nn.Module):
    def forward(self, A, B):
        return torch.tril(torch.matmul(A, B), diagonal=-2)


def get_inputs():
    return [torch.tril(torch.rand(N, N)), torch.tril(torch.rand(N, N))]


def get_init_inputs():
    return []
