"""Average pooling 3-D (F.avg_pool3d) without counting the padding, as KernelBench's 46
but with count_include_pad=False."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 1
CHANNELS = 2
DIM = 6
SHAPES = {"small": {"BATCH": 1, "CHANNELS": 2, "DIM": 6}}


class Model(nn.Module):
    def forward(self, x):
        return F.avg_pool3d(x, 3, stride=2, padding=1, count_include_pad=False)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, DIM, DIM + 1, DIM + 4)]


def get_init_inputs():
    return []
