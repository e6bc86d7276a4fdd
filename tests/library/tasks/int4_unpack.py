"""int4 weights packed two to a uint8 byte, unpacked by `&` and `>>`, interleaved by stack
and a view, shifted by 8 and applied to fp16 activations (issue 30: integer bitwise ops)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, rows, cols):
        super().__init__()
        self.register_buffer("packed", torch.randint(0, 256, (rows, cols // 2), dtype=torch.uint8))

    def forward(self, x):
        low = self.packed & 0x0F
        high = self.packed >> 4
        q = torch.stack((low, high), dim=-1).view(self.packed.shape[0], -1)
        return x * (q.to(x.dtype) - 8.0)


def get_inputs():
    return [torch.randn(12, 40, dtype=torch.float16)]


def get_init_inputs():
    return [12, 40]
