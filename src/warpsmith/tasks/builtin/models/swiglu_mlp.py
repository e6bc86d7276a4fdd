"""SwiGLU feed-forward as in Llama-style decoders: down(silu(gate(x)) * up(x)), bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
seq_len = 16
hidden_size = 64
intermediate_size = 96

SHAPES = {
    "default": {"batch_size": 2, "seq_len": 16, "hidden_size": 64, "intermediate_size": 96},
    # Llama-7B: 4096 -> 11008 -> 4096 over 2048 tokens
    "gpu": {"batch_size": 2, "seq_len": 1024, "hidden_size": 4096, "intermediate_size": 11008},
}


class Model(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        kw = {"bias": False, "dtype": torch.bfloat16}
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, **kw)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, **kw)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, **kw)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden_size, dtype=torch.bfloat16)]


def get_init_inputs():
    return [hidden_size, intermediate_size]
