"""Max pooling 3-D (nn.MaxPool3d) with stride, padding and dilation, as KernelBench's 43."""

import torch
import torch.nn as nn

BATCH = 1
CHANNELS = 2
DIM = 7
SHAPES = {"small": {"BATCH": 1, "CHANNELS": 2, "DIM": 7}}


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int = None, padding: int = 0,
                 dilation: int = 1):
        super().__init__()
        self.maxpool = nn.MaxPool3d(kernel_size=kernel_size, stride=stride, padding=padding,
                                    dilation=dilation)

    def forward(self, x):
        return self.maxpool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, DIM, DIM + 2, DIM + 5)]


def get_init_inputs():
    return [3, 2, 1, 2]
