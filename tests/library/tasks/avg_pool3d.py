"""Average pooling 3-D (nn.AvgPool3d), padding counted, as KernelBench's 46."""

import torch
import torch.nn as nn

BATCH = 1
CHANNELS = 2
DIM = 6
SHAPES = {"small": {"BATCH": 1, "CHANNELS": 2, "DIM": 6}}


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int = None, padding: int = 0):
        super().__init__()
        self.avg_pool = nn.AvgPool3d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.avg_pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, DIM, DIM + 1, DIM + 4)]


def get_init_inputs():
    return [3, 2, 1]
