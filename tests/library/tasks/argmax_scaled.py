"""An argmax inside a graph: the index of the largest x·w − 0.5 along the last dim, w a
learned weight along that dim (a graph reduction, not the exact argmax family)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(70))

    def forward(self, x):
        return torch.argmax(x * self.weight - 0.5, dim=-1)


def get_inputs():
    return [torch.randn(5, 70)]


def get_init_inputs():
    return []
