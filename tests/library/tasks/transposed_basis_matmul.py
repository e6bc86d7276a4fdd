"""A transposed (K, M) basis times a batch of (B, K, N) frames through torch.matmul, fp16,
with a ReLU after. torch folds it the other way: (B*N, K) rows of the frames transposed
times the basis, viewed back as (B, N, M) and transposed. That view's sizes are the frames'
dims 0 and 2 (not adjacent), read at run time, never the traced N."""

import torch
import torch.nn as nn

batch_size = 3
n_basis = 24
n_in = 20
n_frames = 18


class Model(nn.Module):
    def __init__(self, n_in, n_basis):
        super().__init__()
        self.basis = nn.Parameter(torch.randn(n_in, n_basis, dtype=torch.float16) * 0.2)

    def forward(self, frames):
        return torch.relu(torch.matmul(self.basis.t(), frames))


def get_inputs():
    return [torch.randn(batch_size, n_in, n_frames, dtype=torch.float16)]


def get_init_inputs():
    return [n_in, n_basis]
