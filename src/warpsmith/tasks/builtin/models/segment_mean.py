"""Mean of rows per segment with index_add_, returning the means and the segment sizes."""

import torch
import torch.nn as nn

num_rows = 256
feature_dim = 32
num_segments = 24

SHAPES = {
    "default": {"num_rows": 256, "feature_dim": 32, "num_segments": 24},
    # graph pooling: 262144 node rows of 128 into 1000 graphs
    "gpu": {"num_rows": 262144, "feature_dim": 128, "num_segments": 1000},
}


class Model(nn.Module):
    def __init__(self, num_segments):
        super().__init__()
        self.num_segments = num_segments

    def forward(self, x, segment_ids):
        sums = torch.zeros(self.num_segments, x.shape[1], dtype=x.dtype, device=x.device)
        sums.index_add_(0, segment_ids, x)
        counts = torch.zeros(self.num_segments, dtype=torch.long, device=x.device)
        counts.index_add_(0, segment_ids, torch.ones_like(segment_ids))
        means = sums / counts.clamp(min=1).unsqueeze(1).to(x.dtype)
        return means, counts


def get_inputs():
    x = torch.randn(num_rows, feature_dim)
    segment_ids = torch.randint(0, num_segments, (num_rows,))
    return [x, segment_ids]


def get_init_inputs():
    return [num_segments]
