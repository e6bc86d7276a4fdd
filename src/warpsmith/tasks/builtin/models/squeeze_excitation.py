"""Squeeze-excitation: spatial mean -> 1x1 conv -> ReLU -> 1x1 conv -> sigmoid gate, bf16."""

import torch
import torch.nn as nn

batch_size = 2
channels = 32
height = 14
width = 14
rd_ratio = 0.25

SHAPES = {
    "default": {"batch_size": 2, "channels": 32, "height": 14, "width": 14},
    # SE-ResNet-50's first stage: 256 channels at 56x56, batch 128
    "gpu": {"batch_size": 128, "channels": 256, "height": 56, "width": 56},
}


class Model(nn.Module):
    def __init__(self, channels, rd_ratio):
        super().__init__()
        rd_channels = max(1, int(channels * rd_ratio))
        self.fc1 = nn.Conv2d(channels, rd_channels, kernel_size=1, bias=True,
                             dtype=torch.bfloat16)
        self.act = nn.ReLU(inplace=True)
        self.fc2 = nn.Conv2d(rd_channels, channels, kernel_size=1, bias=True,
                             dtype=torch.bfloat16)

    def forward(self, x):
        x_se = x.mean((2, 3), keepdim=True)
        x_se = self.fc1(x_se)
        x_se = self.act(x_se)
        x_se = self.fc2(x_se)
        return x * x_se.sigmoid()


def get_inputs():
    return [torch.randn(batch_size, channels, height, width, dtype=torch.bfloat16) + 0.3]


def get_init_inputs():
    return [channels, rd_ratio]
