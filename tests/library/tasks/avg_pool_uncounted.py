"""Average pooling with a 2x3 window, the default stride (the window), padding not counted."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 3
HEIGHT = 11
WIDTH = 13
SHAPES = {"small": {"BATCH": 2, "CHANNELS": 3, "HEIGHT": 11, "WIDTH": 13}}


class Model(nn.Module):
    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=(2, 3), padding=1, count_include_pad=False)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
