"""Conv2d (3x3, padding 1) + 2x2 max pool + ReLU, strict fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 16
IN_CHANNELS = 128
OUT_CHANNELS = 128
HEIGHT = 96
WIDTH = 96
KERNEL_SIZE = 3
POOL_SIZE = 2

SHAPES = {
    "small": {"BATCH": 2, "IN_CHANNELS": 3, "OUT_CHANNELS": 5, "HEIGHT": 17, "WIDTH": 13},
    # conv: 2*16*128*96*96*128*9 = 43 GFLOP (~1-1.5 ms strict fp32); pool re-reads the 75 MB
    # conv output: ~1.5 ms eager.
    "gpu": {"BATCH": 16, "IN_CHANNELS": 128, "OUT_CHANNELS": 128, "HEIGHT": 96, "WIDTH": 96},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.pool_size = pool_size

    def forward(self, x):
        return torch.relu(F.max_pool2d(self.conv(x), self.pool_size))


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH) * 1.5 + 0.05]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, POOL_SIZE]
