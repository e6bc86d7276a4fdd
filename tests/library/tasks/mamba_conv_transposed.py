"""Mamba's short causal depthwise convolution as its block writes it: the sequence-major
hidden states (B, L, D) transposed to (B, D, L) for nn.Conv1d, cut to L steps, SiLU, and
transposed back (issue 30). The transposes are views: the convolution reads the input at its
strides and the output's transpose is a view of what the kernel stores. bf16."""

import torch
import torch.nn as nn

batch_size = 2
seq_len = 40
dim = 24
conv_width = 4


class Model(nn.Module):
    def __init__(self, dim, width):
        super().__init__()
        self.conv = nn.Conv1d(dim, dim, width, groups=dim, padding=width - 1, bias=True,
                              dtype=torch.bfloat16)

    def forward(self, x):
        L = x.shape[1]
        y = self.conv(x.transpose(1, 2))[..., :L]
        return nn.functional.silu(y).transpose(1, 2)


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim, dtype=torch.bfloat16)]


def get_init_inputs():
    return [dim, conv_width]
