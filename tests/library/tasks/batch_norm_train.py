"""nn.BatchNorm2d in training mode (as constructed), as KernelBench's 33: batch statistics,
running statistics updated."""

import torch
import torch.nn as nn

BATCH = 3
FEATURES = 5
DIM1 = 7
DIM2 = 9
SHAPES = {"small": {"BATCH": 3, "FEATURES": 5, "DIM1": 7, "DIM2": 9}}


class Model(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.rand(BATCH, FEATURES, DIM1, DIM2)]


def get_init_inputs():
    return [FEATURES]
