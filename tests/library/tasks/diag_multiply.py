"""Small twin of KernelBench level1 12: diag(A) @ B written as A.unsqueeze(1) * B."""

import torch
import torch.nn as nn
import torch.nn.functional as F  # noqa: F401

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.args = args


    def forward(self, A, B):
        return A.unsqueeze(1) * B


def get_inputs():
    return [torch.rand(31), torch.rand(31, 45)]


def get_init_inputs():
    return []
