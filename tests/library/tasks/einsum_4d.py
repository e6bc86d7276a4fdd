"""torch.einsum("bijl,lk->bijk", A, B), as KernelBench's 11: unsqueezes, permutes and views
around a bmm of batch 1."""

import torch
import torch.nn as nn

BATCH = 2
DIM_I = 3
DIM_J = 7
DIM_L = 24
DIM_K = 19
SHAPES = {"small": {"BATCH": 2, "DIM_I": 3, "DIM_J": 7, "DIM_L": 24, "DIM_K": 19}}


class Model(nn.Module):
    def forward(self, A, B):
        return torch.einsum("bijl,lk->bijk", A, B)


def get_inputs():
    return [torch.rand(BATCH, DIM_I, DIM_J, DIM_L), torch.rand(DIM_L, DIM_K)]


def get_init_inputs():
    return []
