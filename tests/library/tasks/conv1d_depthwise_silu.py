"""A depthwise 1-D convolution over a sequence with a bias and a SiLU after it, as
ConvNeXt-1D and Conformer blocks write it ("same" padding; the causal form, padded by k - 1
and cut to the input's length, needs a slice after the convolution, not placed yet)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, groups=channels,
                              padding=kernel_size // 2, bias=True)

    def forward(self, x):
        return F.silu(self.conv(x))


def get_inputs():
    return [torch.randn(2, 5, 37)]


def get_init_inputs():
    return [5, 5]
