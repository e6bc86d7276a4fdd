"""RMSNorm over the last dimension written with explicit ops, with a learned weight (fp32)."""

import torch
import torch.nn as nn

BATCH = 16
SEQ = 4096
HIDDEN = 4096

SHAPES = {
    "small": {"BATCH": 3, "SEQ": 37, "HIDDEN": 129},
    # 2.7e8 elements: 1.07 GB read + 1.07 GB written; eager runs ~5 passes ≈ 6 GB, ~2 ms.
    "gpu": {"BATCH": 16, "SEQ": 4096, "HIDDEN": 4096},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        # Random weight (not the ones default) so that a kernel which ignores it cannot pass.
        self.weight = nn.Parameter(torch.randn(hidden) * 0.5 + 1.0)
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def get_inputs():
    # Each row gets its own scale, so the per-row RMS differs widely.
    scale = torch.rand(BATCH, SEQ, 1) * 2.0 + 0.25
    return [torch.randn(BATCH, SEQ, HIDDEN) * scale + 0.2]


def get_init_inputs():
    return [HIDDEN]
