"""Two Linears with a sigmoid between them, then logsumexp over the features: the second
GEMM reads the first one's stored output."""

import torch
import torch.nn as nn

BATCH = 24
IN = 30
HIDDEN = 40
OUT = 20
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.linear1 = nn.Linear(input_size, hidden_size)
        self.linear2 = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        x = torch.sigmoid(self.linear1(x))
        x = self.linear2(x)
        return torch.logsumexp(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, HIDDEN, OUT]
