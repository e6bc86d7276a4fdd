"""Small twin of KernelBench level1 34_InstanceNorm: nn.InstanceNorm2d, which torch traces as a
view to (1, N·C, H, W), a batch norm in training mode and a view back."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(num_features=num_features)

    def forward(self, x):
        return self.inorm(x)


def get_inputs():
    return [torch.rand(3, 4, 9, 13)]


def get_init_inputs():
    return [4]
