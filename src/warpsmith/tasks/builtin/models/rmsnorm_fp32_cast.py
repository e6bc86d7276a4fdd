"""RMSNorm computed in fp32 and cast back to the input's dtype before the weight, bf16."""

import torch
import torch.nn as nn

batch_size = 4
seq_len = 32
hidden_size = 96

SHAPES = {
    "default": {"batch_size": 4, "seq_len": 32, "hidden_size": 96},
    # Llama-7B's hidden 4096 over 8192 tokens
    "gpu": {"batch_size": 4, "seq_len": 2048, "hidden_size": 4096},
}


class Model(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, dtype=torch.bfloat16))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden_size, dtype=torch.bfloat16)]


def get_init_inputs():
    return [hidden_size]
