"""2-D max pooling (3x3 window, stride 2, padding 1) over an NCHW fp32 tensor."""

import torch
import torch.nn as nn

BATCH = 64
CHANNELS = 128
HEIGHT = 256
WIDTH = 256

SHAPES = {
    "small": {"BATCH": 2, "CHANNELS": 3, "HEIGHT": 19, "WIDTH": 23},
    # 5.4e8 elements: 2.1 GB read + 0.5 GB written ≈ 2.7 GB, 2.1 ms eager measured.
    "gpu": {"BATCH": 64, "CHANNELS": 128, "HEIGHT": 256, "WIDTH": 256},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH) * 1.5 + 0.2]


def get_init_inputs():
    return []
