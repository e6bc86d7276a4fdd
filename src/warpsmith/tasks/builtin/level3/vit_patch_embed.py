"""ViT patch embedding in bf16: conv with stride = patch size, flatten, + position embedding, LN."""

import torch
import torch.nn as nn

BATCH = 256
IN_CHANNELS = 3
IMAGE_SIZE = 224
PATCH_SIZE = 14
EMBED_DIM = 1024

SHAPES = {
    "small": {"BATCH": 2, "IN_CHANNELS": 3, "IMAGE_SIZE": 35, "PATCH_SIZE": 7, "EMBED_DIM": 37},
    # ViT-L/14 stem on 256 images: conv 2 * 256 * 256 * 1024 * 588 = 79 GFLOP; 77 MB of pixels
    # in, 134 MB of tokens out. Measured 3.7 ms eager in bf16 on an H200 (cuDNN's strided conv
    # is far from the ~0.1 ms floor).
    "gpu": {
        "BATCH": 256,
        "IN_CHANNELS": 3,
        "IMAGE_SIZE": 224,
        "PATCH_SIZE": 14,
        "EMBED_DIM": 1024,
    },
}
DTYPE = "bfloat16"


class Model(nn.Module):
    def __init__(self, in_channels, embed_dim, patch_size, num_patches):
        super().__init__()
        self.proj = nn.Conv2d(in_channels, embed_dim, patch_size, stride=patch_size)
        self.pos_embed = nn.Parameter(0.5 * torch.randn(1, num_patches, embed_dim))
        self.norm = nn.LayerNorm(embed_dim, eps=1e-6)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.1 * torch.randn(embed_dim))
            self.norm.bias.copy_(0.1 * torch.randn(embed_dim))

    def forward(self, x):
        tokens = self.proj(x).flatten(2).transpose(1, 2)  # [batch, num_patches, embed_dim]
        return self.norm(tokens + self.pos_embed)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, IMAGE_SIZE, IMAGE_SIZE) + 0.1]


def get_init_inputs():
    return [IN_CHANNELS, EMBED_DIM, PATCH_SIZE, (IMAGE_SIZE // PATCH_SIZE) ** 2]
