"""LayerNorm over the hidden dimension followed by exact (erf) GELU, fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS = 65536
HIDDEN = 4096

SHAPES = {
    "small": {"TOKENS": 37, "HIDDEN": 129},
    # x is 1.07 GB; fused reads and writes it once (~0.5 ms); eager layer_norm + gelu moves
    # ~4.3 GB (~1.1 ms).
    "gpu": {"TOKENS": 65536, "HIDDEN": 4096},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.copy_(torch.randn(hidden) * 0.2 + 1.0)
            self.norm.bias.copy_(torch.randn(hidden) * 0.1)

    def forward(self, x):
        return F.gelu(self.norm(x))


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN) * 1.5 + 0.05]


def get_init_inputs():
    return [HIDDEN]
