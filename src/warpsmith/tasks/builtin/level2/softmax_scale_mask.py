"""Scaled attention-score softmax with an additive mask broadcast over heads, fp32."""

import math

import torch
import torch.nn as nn

BATCH = 16
HEADS = 16
SEQ_LEN = 1024
HEAD_DIM = 64

SHAPES = {
    "small": {"BATCH": 2, "HEADS": 3, "SEQ_LEN": 37, "HEAD_DIM": 64},
    # scores 16*16*1024*1024 fp32 = 1.07 GB; fused reads it plus a 67 MB mask and writes 1.07 GB
    # (~0.5 ms); eager mul, add, softmax moves ~6.5 GB (~1.6 ms).
    "gpu": {"BATCH": 16, "HEADS": 16, "SEQ_LEN": 1024, "HEAD_DIM": 64},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, scores, mask):
        # scores: (batch, heads, seq, seq); mask: (batch, 1, seq, seq), added to every head.
        return torch.softmax(scores * self.scale + mask, dim=-1)


def get_inputs():
    # Raw q.k scores have std ~sqrt(head_dim); the mask is a relative-position style bias.
    return [
        torch.randn(BATCH, HEADS, SEQ_LEN, SEQ_LEN) * math.sqrt(HEAD_DIM) + 0.1,
        torch.randn(BATCH, 1, SEQ_LEN, SEQ_LEN) * 2.0 - 0.5,
    ]


def get_init_inputs():
    return [1.0 / math.sqrt(HEAD_DIM)]
