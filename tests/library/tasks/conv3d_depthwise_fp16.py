"""A strided depthwise 3-D convolution in fp16 (a video backbone's channel-wise conv)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}
DTYPE = "float16"  # the loader casts the model and the inputs


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv3d(channels, channels, (3, 3, 2), stride=(1, 2, 2), padding=1,
                              groups=channels, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 4, 5, 9, 8)]


def get_init_inputs():
    return [4]
