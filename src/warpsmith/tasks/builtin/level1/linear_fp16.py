"""nn.Linear in fp16: a GEMM with bias, weights owned by the model."""

import torch
import torch.nn as nn

BATCH = 8192
IN_FEATURES = 8192
OUT_FEATURES = 8192

SHAPES = {
    "small": {"BATCH": 33, "IN_FEATURES": 72, "OUT_FEATURES": 40},
    "gpu": {"BATCH": 8192, "IN_FEATURES": 8192, "OUT_FEATURES": 8192},
}
DTYPE = "float16"


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.linear(x)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
