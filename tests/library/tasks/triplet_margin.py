"""Small twin of KernelBench level1 99_TripletMarginLoss: two norms per row, a hinge, then the
mean over the rows: two reduced shapes, so two kernels (the rows' losses, then their mean)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, margin=1.0):
        super().__init__()
        self.loss_fn = torch.nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor, positive, negative):
        return self.loss_fn(anchor, positive, negative)


def get_inputs():
    scale = torch.rand(())
    return [torch.rand(40, 70) * scale, torch.rand(40, 70), torch.rand(40, 70)]


def get_init_inputs():
    return [1.0]
