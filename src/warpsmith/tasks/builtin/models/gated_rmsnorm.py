"""Gated RMSNorm of selective SSM blocks: x * silu(z), normalised per group in fp32, bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
seq_len = 32
n_groups = 2
group_dim = 32

SHAPES = {
    "default": {"batch_size": 2, "seq_len": 32, "n_groups": 2, "group_dim": 32},
    # Mamba-2 / Codestral Mamba: d_inner 8192 in 8 groups, 2048 tokens
    "gpu": {"batch_size": 2, "seq_len": 2048, "n_groups": 8, "group_dim": 1024},
}


class Model(nn.Module):
    def __init__(self, hidden_size, group_size, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, dtype=torch.bfloat16))
        self.group_size = group_size
        self.eps = eps

    def forward(self, hidden_states, gate):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        hidden_states = hidden_states * F.silu(gate.to(torch.float32))
        *prefix, dim = hidden_states.shape
        grouped = hidden_states.view(*prefix, dim // self.group_size, self.group_size)
        variance = grouped.pow(2).mean(-1, keepdim=True)
        grouped = grouped * torch.rsqrt(variance + self.eps)
        hidden_states = grouped.view(*prefix, dim)
        return self.weight * hidden_states.to(input_dtype)


def get_inputs():
    shape = (batch_size, seq_len, n_groups * group_dim)
    return [torch.randn(shape, dtype=torch.bfloat16), torch.randn(shape, dtype=torch.bfloat16)]


def get_init_inputs():
    return [n_groups * group_dim, group_dim]
