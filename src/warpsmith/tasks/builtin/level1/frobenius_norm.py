"""Frobenius norm of every matrix in a batch: torch.norm over the last two dims."""

import torch
import torch.nn as nn

BATCH = 128
CHANNELS = 64
HEIGHT = 256
WIDTH = 512

SHAPES = {
    "small": {"BATCH": 3, "CHANNELS": 5, "HEIGHT": 17, "WIDTH": 23},
    # 1.07e9 elements: 4.3 GB read, 32 KB written, ~1.1 ms eager.
    "gpu": {"BATCH": 128, "CHANNELS": 64, "HEIGHT": 256, "WIDTH": 512},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, x):
        return torch.norm(x, p="fro", dim=(-2, -1))


def get_inputs():
    # Each matrix gets its own scale, so the norms spread widely: without it every norm is
    # within a fraction of a percent of the same value and a constant would pass.
    scale = torch.rand(BATCH, CHANNELS, 1, 1) * 2.0 + 0.25
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH) * scale + 0.2]


def get_init_inputs():
    return []
