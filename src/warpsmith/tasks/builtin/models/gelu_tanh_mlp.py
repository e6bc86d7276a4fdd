"""GPT-style MLP: c_fc, tanh-approximated GELU, c_proj, fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
seq_len = 16
n_embd = 64

SHAPES = {
    "default": {"batch_size": 2, "seq_len": 16, "n_embd": 64},
    # GPT-2 XL: n_embd 1600, 1024 tokens
    "gpu": {"batch_size": 4, "seq_len": 1024, "n_embd": 1600},
}


class Model(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, dtype=torch.float16)
        self.c_proj = nn.Linear(4 * n_embd, n_embd, dtype=torch.float16)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


def get_inputs():
    return [torch.randn(batch_size, seq_len, n_embd, dtype=torch.float16)]


def get_init_inputs():
    return [n_embd]
