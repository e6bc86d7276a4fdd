"""Small twin of KernelBench level 2 84: a Linear, BatchNorm1d in training mode (a column
reduction over the batch), a learned scale and a softmax over the features (a row
reduction of what the first stage stored)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, bn_eps=1e-5, bn_momentum=0.1,
                 scale_shape=(1,)):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features, eps=bn_eps, momentum=bn_momentum)
        self.scale = nn.Parameter(torch.ones(scale_shape))
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        return self.softmax(self.scale * self.bn(self.gemm(x)))


def get_inputs():
    return [torch.rand(20, 32)]


def get_init_inputs():
    return [32, 40]
