"""A batched product with the second operand transposed (read in place), scaled, plus a
per-row input broadcast over the columns, then tanh."""

import torch
import torch.nn as nn

B = 3
M = 20
K = 36
N = 28
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, a, b, shift):
        return torch.tanh(torch.bmm(a, b.transpose(1, 2)) * self.scale + shift)


def get_inputs():
    return [torch.randn(B, M, K), torch.randn(B, N, K), torch.randn(B, M, 1)]


def get_init_inputs():
    return [0.25]
