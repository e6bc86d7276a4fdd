"""An fp16 Linear and GELU: fp16 operands, fp32 accumulation and epilogue, an fp16 store."""

import torch
import torch.nn as nn

BATCH = 20
IN = 48
OUT = 40
DTYPE = "float16"  # the loader casts the model and the inputs
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.nn.functional.gelu(self.linear(x))


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT]
