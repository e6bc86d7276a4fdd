"""logsumexp over the last dim, then x minus it: a log-softmax written by hand."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def forward(self, x):
        return x - torch.logsumexp(x, dim=-1, keepdim=True)


def get_inputs():
    return [torch.randn(6, 300) * 4]


def get_init_inputs():
    return []
