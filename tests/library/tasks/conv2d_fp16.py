"""A 2-D convolution in fp16 with a bias, padded and dilated: fp16 operands, fp32
accumulation."""

import torch
import torch.nn as nn

DTYPE = "float16"  # the loader casts the model and the inputs
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups):
        super().__init__()
        self.conv = nn.Conv2d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding,
            dilation=dilation, groups=groups, bias=True)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 4, 8, 8)]


def get_init_inputs():
    return [4, 16, 3, 1, 2, 2, 1]
