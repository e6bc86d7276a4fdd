"""Depthwise 2-D convolution (3x3, padding 1, groups = channels, with bias) in fp32."""

import torch
import torch.nn as nn

BATCH = 64
CHANNELS = 256
HEIGHT = 128
WIDTH = 128
KERNEL_SIZE = 3

SHAPES = {
    "small": {"BATCH": 2, "CHANNELS": 5, "HEIGHT": 19, "WIDTH": 23},
    # 2.7e8 elements: 1.07 GB read + 1.07 GB written ≈ 2.1 GB; memory-bound, 2.5 ms eager measured.
    "gpu": {"BATCH": 64, "CHANNELS": 256, "HEIGHT": 128, "WIDTH": 128},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(
            channels, channels, kernel_size, padding=kernel_size // 2, groups=channels
        )

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH) * 1.5 + 0.2]


def get_init_inputs():
    return [CHANNELS, KERNEL_SIZE]
