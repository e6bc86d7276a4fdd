"""Average pooling with a fixed divisor (divisor_override) and stride 2."""

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
        return F.avg_pool2d(x, 3, stride=2, divisor_override=5)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
