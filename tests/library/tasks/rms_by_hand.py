"""RMSNorm written by hand over the last dim, eps from the constructor."""

import torch
import torch.nn as nn
import torch.nn.functional as F  # noqa: F401

ROWS = 7
COLS = 200
SHAPES = {"small": {"ROWS": 7, "COLS": 200}, "narrow": {"ROWS": 3, "COLS": 33}}


class Model(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.args = args


    def forward(self, x):
        return x / torch.sqrt(torch.mean(x ** 2, dim=-1, keepdim=True) + self.args[0])


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return [1e-6]
