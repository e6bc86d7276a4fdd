"""Max pooling 1-D (nn.MaxPool1d) with stride, padding and dilation, as KernelBench's 41."""

import torch
import torch.nn as nn

BATCH = 2
FEATURES = 3
LENGTH = 77
SHAPES = {"small": {"BATCH": 2, "FEATURES": 3, "LENGTH": 77}}


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int = None, padding: int = 0,
                 dilation: int = 1):
        super().__init__()
        self.maxpool = nn.MaxPool1d(kernel_size, stride=stride, padding=padding,
                                    dilation=dilation)

    def forward(self, x):
        return self.maxpool(x)


def get_inputs():
    return [torch.randn(BATCH, FEATURES, LENGTH)]


def get_init_inputs():
    return [4, 2, 2, 3]
