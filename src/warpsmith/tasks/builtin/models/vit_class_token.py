"""ViT token prep: a class token concatenated before the patches, plus positions, fp16."""

import torch
import torch.nn as nn

batch_size = 4
num_patches = 49
embed_dim = 64

SHAPES = {
    "default": {"batch_size": 4, "num_patches": 49, "embed_dim": 64},
    # ViT-B/16 at 224 px: 196 patches of 768
    "gpu": {"batch_size": 512, "num_patches": 196, "embed_dim": 768},
}


class Model(nn.Module):
    def __init__(self, num_patches, embed_dim):
        super().__init__()
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim, dtype=torch.float16) * 0.02)
        self.pos_embed = nn.Parameter(
            torch.randn(1, num_patches + 1, embed_dim, dtype=torch.float16) * 0.02)

    def forward(self, x):
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1)
        return x + self.pos_embed


def get_inputs():
    return [torch.randn(batch_size, num_patches, embed_dim, dtype=torch.float16)]


def get_init_inputs():
    return [num_patches, embed_dim]
