"""Small twin of KernelBench level1 5_Matrix_scalar_multiplication: s is a forward number."""

import torch
import torch.nn as nn
import torch.nn.functional as F  # noqa: F401

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.args = args


    def forward(self, A, s):
        return A * s


def get_inputs():
    return [torch.rand(33, 65), 3.14]


def get_init_inputs():
    return []
