"""SwiGLU MLP activation: silu(x @ W1^T) * (x @ W3^T), two bias-free GEMMs sharing x, in bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS = 8192
HIDDEN = 4096
INTERMEDIATE = 14336

SHAPES = {
    "small": {"TOKENS": 37, "HIDDEN": 67, "INTERMEDIATE": 45},
    # two GEMMs: 2*2*8192*4096*14336 = 1.9 TFLOP (~2.8 ms at ~700 TFLOP/s); the gate product
    # re-reads two 235 MB intermediates: ~3 ms eager.
    "gpu": {"TOKENS": 8192, "HIDDEN": 4096, "INTERMEDIATE": 14336},
}
DTYPE = "bfloat16"


class Model(nn.Module):
    def __init__(self, hidden, intermediate):
        super().__init__()
        self.w1 = nn.Linear(hidden, intermediate, bias=False)
        self.w3 = nn.Linear(hidden, intermediate, bias=False)

    def forward(self, x):
        return F.silu(self.w1(x)) * self.w3(x)


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN) * 1.5 + 0.05]


def get_init_inputs():
    return [HIDDEN, INTERMEDIATE]
