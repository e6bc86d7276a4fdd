"""GroupNorm with an affine transform over NCHW activations, as in U-Net blocks, fp32."""

import torch
import torch.nn as nn

batch_size = 2
num_groups = 8
channels_per_group = 10
height = 12
width = 12

SHAPES = {
    "default": {
        "batch_size": 2, "num_groups": 8, "channels_per_group": 10, "height": 12, "width": 12,
    },
    # a Stable Diffusion U-Net block: 32 groups of 640 channels at 64x64
    "gpu": {
        "batch_size": 16, "num_groups": 32, "channels_per_group": 20, "height": 64, "width": 64,
    },
}


class Model(nn.Module):
    def __init__(self, num_groups, num_channels):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups, num_channels, eps=1e-6, affine=True)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch_size, num_groups * channels_per_group, height, width) * 2 + 0.5]


def get_init_inputs():
    return [num_groups, num_groups * channels_per_group]
