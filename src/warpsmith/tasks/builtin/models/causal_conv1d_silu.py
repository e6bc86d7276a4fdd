"""Depthwise causal conv1d (pad k-1, keep L steps) then SiLU, as in selective SSMs, bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
d_inner = 64
seq_len = 48
d_conv = 4

SHAPES = {
    "default": {"batch_size": 2, "d_inner": 64, "seq_len": 48, "d_conv": 4},
    # Mamba-2.8B: d_inner 5120, d_conv 4, 2048 steps
    "gpu": {"batch_size": 4, "d_inner": 5120, "seq_len": 2048, "d_conv": 4},
}


class Model(nn.Module):
    def __init__(self, d_inner, d_conv):
        super().__init__()
        self.conv1d = nn.Conv1d(d_inner, d_inner, kernel_size=d_conv, groups=d_inner,
                                padding=d_conv - 1, bias=True, dtype=torch.bfloat16)

    def forward(self, x):
        seqlen = x.shape[-1]
        return F.silu(self.conv1d(x)[..., :seqlen])


def get_inputs():
    return [torch.randn(batch_size, d_inner, seq_len, dtype=torch.bfloat16)]


def get_init_inputs():
    return [d_inner, d_conv]
