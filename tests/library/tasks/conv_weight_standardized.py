"""A weight-standardised convolution (BiT's StdConv2d, issue 30): the weight normalised per
output channel (mean and variance over its input channels and taps) just before F.conv2d.
The prologue is the weight's: the row family writes the standardised weight to a temporary
the convolution reads."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
in_channels = 6
out_channels = 16
height = 10
width = 10


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_channels, in_channels, 3, 3))
        self.bias = nn.Parameter(torch.randn(out_channels))
        self.eps = eps

    def forward(self, x):
        w = self.weight
        mean = w.mean(dim=(1, 2, 3), keepdim=True)
        var = w.var(dim=(1, 2, 3), keepdim=True, unbiased=False)
        w = (w - mean) / torch.sqrt(var + self.eps)
        return F.conv2d(x, w, self.bias, padding=1)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, 1e-5]
