"""Small twin of KernelBench level1 100_HingeLoss: targets broadcast along the last dim."""

import torch
import torch.nn as nn
import torch.nn.functional as F  # noqa: F401

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.args = args


    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


def get_inputs():
    return [torch.rand(50, 50), torch.randint(0, 2, (50,)).float() * 2 - 1]


def get_init_inputs():
    return []
