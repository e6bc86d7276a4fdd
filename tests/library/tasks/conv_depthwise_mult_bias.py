"""Depthwise 2-D convolution with a channel multiplier (out = 2 × in channels, groups = in),
dilated, padded, with a bias and an activation after it (the epilogue on the depthwise
kernel's sum), as a MobileNet-style block writes it."""

import torch
import torch.nn as nn
import torch.nn.functional as F

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, channels, kernel_size, dilation):
        super().__init__()
        self.conv = nn.Conv2d(channels, 2 * channels, kernel_size, padding=dilation,
                              dilation=dilation, groups=channels, bias=True)

    def forward(self, x):
        return F.relu6(self.conv(x))


def get_inputs():
    return [torch.randn(2, 3, 11, 10)]


def get_init_inputs():
    return [3, 3, 2]
