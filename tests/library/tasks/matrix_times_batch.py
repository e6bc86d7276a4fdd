"""A matrix times a batch of matrices through torch.matmul (issue 30: a filter bank applied
to (B, K, N) frames, log-mel's `mel_filters @ magnitudes`): torch expands the (M, K) matrix
to the batch before its bmm, and the product reads it as a stride-0 view along the batch (no
copy). The bank is a buffer, as a filter bank is (a Parameter, which needs grad, makes
torch fold the product the other way). fp16, with a ReLU after."""

import torch
import torch.nn as nn

batch_size = 3
n_basis = 24
n_in = 20
n_frames = 18


class Model(nn.Module):
    def __init__(self, n_in, n_basis):
        super().__init__()
        self.register_buffer("basis", torch.randn(n_basis, n_in, dtype=torch.float16) * 0.2)

    def forward(self, frames):
        return torch.relu(torch.matmul(self.basis, frames))


def get_inputs():
    return [torch.randn(batch_size, n_in, n_frames, dtype=torch.float16)]


def get_init_inputs():
    return [n_in, n_basis]
