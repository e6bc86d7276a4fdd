"""ConvNeXt's depthwise 7x7 as timm writes it over channels-last activations: the (B, H, W, C)
input permuted to NCHW for nn.Conv2d, the result permuted back and a GELU after it (issue
30). The permutes are views, read and stored at their strides. fp32."""

import torch
import torch.nn as nn

batch_size = 2
height = 11
width = 13
dim = 12


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)

    def forward(self, x):
        y = self.dwconv(x.permute(0, 3, 1, 2))
        return nn.functional.gelu(y.permute(0, 2, 3, 1))


def get_inputs():
    return [torch.randn(batch_size, height, width, dim)]


def get_init_inputs():
    return [dim]
