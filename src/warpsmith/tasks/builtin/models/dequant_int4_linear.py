"""Linear over 4-bit weights: unpack nibbles, subtract 8, scale per group, fp16."""

import torch
import torch.nn as nn

batch_size = 8
out_features = 48
num_groups = 4
group_size = 16  # in_features = num_groups * group_size

SHAPES = {
    "default": {"batch_size": 8, "out_features": 48, "num_groups": 4, "group_size": 16},
    # a 4-bit Llama-7B up projection (4096 -> 11008, groups of 128), 16 tokens decoded
    "gpu": {"batch_size": 16, "out_features": 11008, "num_groups": 32, "group_size": 128},
}


class Model(nn.Module):
    def __init__(self, out_features, num_groups, group_size):
        super().__init__()
        in_features = num_groups * group_size
        # byte j of a row holds columns 2j (low nibble) and 2j+1 (high nibble)
        packed = torch.randint(0, 256, (out_features, in_features // 2), dtype=torch.uint8)
        self.register_buffer("qweight", packed)
        self.scales = nn.Parameter(torch.rand(out_features, num_groups, dtype=torch.float16)
                                   * 0.02 + 0.01)
        self.group_size = group_size

    def forward(self, x):
        low = self.qweight & 0x0F
        high = self.qweight >> 4
        out_f = self.qweight.shape[0]
        q = torch.stack((low, high), dim=-1).view(out_f, -1).to(x.dtype) - 8.0
        in_f = q.shape[1]
        w = (q.view(out_f, in_f // self.group_size, self.group_size)
             * self.scales.unsqueeze(-1)).reshape(out_f, in_f)
        return x @ w.t()


def get_inputs():
    return [torch.randn(batch_size, num_groups * group_size, dtype=torch.float16)]


def get_init_inputs():
    return [out_features, num_groups, group_size]
