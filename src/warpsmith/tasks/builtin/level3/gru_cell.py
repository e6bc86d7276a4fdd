"""One GRU cell step in bf16 with explicit ops (PyTorch gate layout r, z, n); returns new h."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 8192
INPUT_SIZE = 2048
HIDDEN_SIZE = 4096

SHAPES = {
    "small": {"BATCH": 7, "INPUT_SIZE": 29, "HIDDEN_SIZE": 37},
    # Gate GEMMs 2 * 8192 * (2048 + 4096) * 12288 = 1.24 TFLOP; 150 MB of weights and ~0.6 GB of
    # gate activations. Measured 2.2 ms eager in bf16 on an H200.
    "gpu": {"BATCH": 8192, "INPUT_SIZE": 2048, "HIDDEN_SIZE": 4096},
}
DTYPE = "bfloat16"


class Model(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        bound = hidden_size**-0.5
        self.weight_ih = nn.Parameter((torch.rand(3 * hidden_size, input_size) * 2 - 1) * bound)
        self.weight_hh = nn.Parameter((torch.rand(3 * hidden_size, hidden_size) * 2 - 1) * bound)
        self.bias_ih = nn.Parameter((torch.rand(3 * hidden_size) * 2 - 1) * bound)
        self.bias_hh = nn.Parameter((torch.rand(3 * hidden_size) * 2 - 1) * bound)

    def forward(self, x, h):
        gi = F.linear(x, self.weight_ih, self.bias_ih)
        gh = F.linear(h, self.weight_hh, self.bias_hh)
        i_r, i_z, i_n = gi.chunk(3, dim=1)
        h_r, h_z, h_n = gh.chunk(3, dim=1)
        r = torch.sigmoid(i_r + h_r)
        z = torch.sigmoid(i_z + h_z)
        n = torch.tanh(i_n + r * h_n)
        return (1 - z) * n + z * h


def get_inputs():
    x = torch.randn(BATCH, INPUT_SIZE) + 0.05
    h = torch.randn(BATCH, HIDDEN_SIZE) * 0.5 - 0.02
    return [x, h]


def get_init_inputs():
    return [INPUT_SIZE, HIDDEN_SIZE]
