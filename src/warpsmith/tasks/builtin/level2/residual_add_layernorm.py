"""Residual add followed by LayerNorm over the hidden dimension (post-norm block), fp32."""

import torch
import torch.nn as nn

TOKENS = 32768
HIDDEN = 8192

SHAPES = {
    "small": {"TOKENS": 37, "HIDDEN": 129},
    # each tensor 1.07 GB; fused moves 3.2 GB (~0.8 ms); eager add + layer_norm moves ~5.4 GB
    # (~1.3 ms).
    "gpu": {"TOKENS": 32768, "HIDDEN": 8192},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.copy_(torch.randn(hidden) * 0.2 + 1.0)
            self.norm.bias.copy_(torch.randn(hidden) * 0.1)

    def forward(self, x, residual):
        return self.norm(x + residual)


def get_inputs():
    return [
        torch.randn(TOKENS, HIDDEN) * 1.5 + 0.05,
        torch.randn(TOKENS, HIDDEN) * 0.8 - 0.1,
    ]


def get_init_inputs():
    return [HIDDEN]
