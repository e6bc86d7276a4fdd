"""Pre-norm step with the residual stream kept in fp32: bf16 hidden + fp32 residual in, both out."""

import torch
import torch.nn as nn

batch_size = 2
seq_len = 32
hidden_size = 96

SHAPES = {
    "default": {"batch_size": 2, "seq_len": 32, "hidden_size": 96},
    # Llama-7B's hidden 4096 over 8192 tokens
    "gpu": {"batch_size": 4, "seq_len": 2048, "hidden_size": 4096},
}


class Model(nn.Module):
    def __init__(self, hidden_size, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, dtype=torch.bfloat16))
        self.eps = eps

    def forward(self, hidden_states, residual):
        residual = residual + hidden_states.to(torch.float32)
        variance = residual.pow(2).mean(-1, keepdim=True)
        normed = residual * torch.rsqrt(variance + self.eps)
        return (normed * self.weight.float()).to(self.weight.dtype), residual


def get_inputs():
    hidden = torch.randn(batch_size, seq_len, hidden_size, dtype=torch.bfloat16)
    residual = torch.randn(batch_size, seq_len, hidden_size, dtype=torch.float32) * 2
    return [hidden, residual]


def get_init_inputs():
    return [hidden_size]
