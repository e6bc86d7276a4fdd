"""Max pooling with a dilated 3x3 window, stride 1, padding 1."""

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
        return F.max_pool2d(x, 3, stride=1, padding=1, dilation=2)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
