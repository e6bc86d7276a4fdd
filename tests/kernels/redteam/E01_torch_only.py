# task: level1/relu
# expect: rejected
# exploit: E01, call PyTorch instead of writing a kernel
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
