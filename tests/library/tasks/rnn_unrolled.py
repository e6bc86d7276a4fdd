import torch
import torch.nn as nn


class Model(nn.Module):
    """A vanilla RNN unrolled in forward (KernelBench level 3's VanillaRNNHidden, short): each
    step a product whose operand is a cat of the input and the last hidden state."""

    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)

    def forward(self, x, h0):
        hidden, outputs = h0, []
        for t in range(x.shape[0]):
            hidden = torch.tanh(self.i2h(torch.cat((x[t], hidden), dim=1)))
            outputs.append(self.h2o(hidden))
        return torch.stack(outputs, dim=0)


def get_inputs():
    return [torch.rand(6, 4, 16), torch.rand(4, 32)]


def get_init_inputs():
    return [16, 32, 8]
