"""Non-causal attention in fp32 with a head size that is no power of two (24)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
HEADS = 2
SEQ = 45
HEAD_DIM = 24
SHAPES = {"small": {"BATCH": 2, "HEADS": 2, "SEQ": 45, "HEAD_DIM": 24}}


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def get_inputs():
    shape = (BATCH, HEADS, SEQ, HEAD_DIM)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return []
