"""Complex arithmetic beyond one product (issue 30): x's pairs times a complex64 weight,
conjugated, plus x divided by the weight, returned as interleaved fp32 pairs."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, pairs):
        super().__init__()
        self.register_buffer("w", torch.polar(torch.rand(pairs) + 0.5, torch.randn(pairs)))

    def forward(self, x):
        xc = torch.view_as_complex(x.reshape(x.shape[0], x.shape[1], -1, 2))
        z = torch.conj(xc * self.w) + xc / self.w
        return torch.view_as_real(z).reshape(x.shape)


def get_inputs():
    return [torch.randn(4, 10, 16)]


def get_init_inputs():
    return [8]
