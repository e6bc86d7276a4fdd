"""An MLP written as nn.Sequential, as timm and diffusers blocks write it: its parameters are
numbered in the state_dict ("net.0.weight", "net.2.bias")."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x):
        return self.net(x)


def get_inputs():
    return [torch.randn(6, 24)]


def get_init_inputs():
    return [24, 40]
