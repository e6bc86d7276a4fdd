"""DiT adaLN: SiLU + Linear on the conditioning, chunked into shift, scale and gate, bf16."""

import torch
import torch.nn as nn

batch_size = 2
tokens = 32
hidden_size = 64

SHAPES = {
    "default": {"batch_size": 2, "tokens": 32, "hidden_size": 64},
    # DiT-XL/2 at 512 px: 1024 tokens of 1152
    "gpu": {"batch_size": 32, "tokens": 1024, "hidden_size": 1152},
}


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class Model(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6,
                                 dtype=torch.bfloat16)
        self.adaLN_modulation = nn.Sequential(
            nn.SiLU(), nn.Linear(hidden_size, 3 * hidden_size, bias=True, dtype=torch.bfloat16))

    def forward(self, x, c):
        shift, scale, gate = self.adaLN_modulation(c).chunk(3, dim=1)
        return x + gate.unsqueeze(1) * modulate(self.norm(x), shift, scale)


def get_inputs():
    x = torch.randn(batch_size, tokens, hidden_size, dtype=torch.bfloat16)
    c = torch.randn(batch_size, hidden_size, dtype=torch.bfloat16) * 2
    return [x, c]


def get_init_inputs():
    return [hidden_size]
