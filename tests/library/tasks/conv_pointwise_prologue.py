"""Pointwise ops computed just before a convolution (issue 30): a pre-activation block's
GELU of its input times a per-channel scale, then a padded 3x3 convolution, fp16. The
prologue is written by a pointwise kernel to a temporary the convolution reads."""

import torch
import torch.nn as nn

batch_size = 2
channels = 8
height = 9
width = 11


class Model(nn.Module):
    def __init__(self, channels, out_channels):
        super().__init__()
        self.scale = nn.Parameter(torch.rand(channels, 1, 1, dtype=torch.float16) + 0.5)
        self.conv = nn.Conv2d(channels, out_channels, 3, padding=1, dtype=torch.float16)

    def forward(self, x):
        return self.conv(nn.functional.gelu(x) * self.scale)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width, dtype=torch.float16)]


def get_init_inputs():
    return [channels, 16]
