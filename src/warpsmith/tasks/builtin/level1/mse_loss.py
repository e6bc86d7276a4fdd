"""Mean-squared-error loss (mean reduction) between two large fp32 tensors."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 32768
COLS = 16384

SHAPES = {
    "small": {"ROWS": 37, "COLS": 129},
    # Two 2.1 GB inputs ≈ 4.3 GB read, scalar written, 2 ms eager measured.
    "gpu": {"ROWS": 32768, "COLS": 16384},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, predictions, targets):
        return F.mse_loss(predictions, targets, reduction="mean")


def get_inputs():
    return [torch.randn(ROWS, COLS) * 1.5 + 0.2, torch.randn(ROWS, COLS) - 0.3]


def get_init_inputs():
    return []
