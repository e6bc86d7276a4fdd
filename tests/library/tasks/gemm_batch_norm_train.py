"""Small twin of KernelBench level 2 33 and 39: a Linear, a scale, then BatchNorm1d in
training mode (as constructed): batch statistics per feature, a column reduction over the
batch; the running statistics it moves are never read by the output."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, scale_shape, eps=1e-5, momentum=0.1):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(scale_shape))
        self.bn = nn.BatchNorm1d(out_features, eps=eps, momentum=momentum)

    def forward(self, x):
        return self.bn(self.gemm(x) * self.scale)


def get_inputs():
    return [torch.rand(24, 32)]


def get_init_inputs():
    return [32, 48, (48,)]
