"""Small twin of KernelBench level 2 67 and 44: a 2-D convolution, GELU and a global average
pool (adaptive_avg_pool2d to 1, squeezed): the mean in a row kernel after it."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        x = torch.nn.functional.gelu(self.conv(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1)
        return x.squeeze(-1).squeeze(-1)


def get_inputs():
    return [torch.rand(2, 4, 9, 8)]


def get_init_inputs():
    return [4, 16, 3]
