"""LayerNorm over the last dimension with a learned weight and bias (fp32)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 65536
HIDDEN = 8192

SHAPES = {
    "small": {"BATCH": 37, "HIDDEN": 129},
    # 5.4e8 elements: 2.1 GB read + 2.1 GB written ≈ 4.3 GB, ~1.5 ms eager.
    "gpu": {"BATCH": 65536, "HIDDEN": 8192},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, hidden, eps=1e-5):
        super().__init__()
        # Random affine parameters (not the ones/zeros default) so that a kernel which
        # ignores the weight or the bias cannot pass.
        self.weight = nn.Parameter(torch.randn(hidden) * 0.5 + 1.0)
        self.bias = nn.Parameter(torch.randn(hidden) * 0.5)
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps)


def get_inputs():
    # Each row gets its own scale, so the per-row statistics differ widely.
    scale = torch.rand(BATCH, 1) * 2.0 + 0.25
    return [torch.randn(BATCH, HIDDEN) * scale + 0.2]


def get_init_inputs():
    return [HIDDEN]
