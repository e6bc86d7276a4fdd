"""GEMM + bias followed by a row-wise softmax over the output features, in bf16."""

import torch
import torch.nn as nn

BATCH = 16384
IN_FEATURES = 4096
OUT_FEATURES = 8192

SHAPES = {
    "small": {"BATCH": 37, "IN_FEATURES": 67, "OUT_FEATURES": 45},
    # 2*16384*4096*8192 = 1.1 TFLOP (~1.6 ms at ~700 TFLOP/s); softmax re-reads and rewrites
    # the 268 MB logits: ~1.8 ms eager.
    "gpu": {"BATCH": 16384, "IN_FEATURES": 4096, "OUT_FEATURES": 8192},
}
DTYPE = "bfloat16"


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.softmax(self.linear(x), dim=1)


def get_inputs():
    # Scaled so the logits have std ~2.5 and each softmax row has a few dominant entries.
    return [torch.randn(BATCH, IN_FEATURES) * 4.0 + 0.05]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
