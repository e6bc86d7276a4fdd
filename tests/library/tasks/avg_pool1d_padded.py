"""Average pooling 1-D (nn.AvgPool1d) with padding counted, as KernelBench's 44."""

import torch
import torch.nn as nn

BATCH = 2
CHANNELS = 3
LENGTH = 70
SHAPES = {"small": {"BATCH": 2, "CHANNELS": 3, "LENGTH": 70}}


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int = 1, padding: int = 0):
        super().__init__()
        self.avg_pool = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.avg_pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, LENGTH)]


def get_init_inputs():
    return [5, 1, 2]
