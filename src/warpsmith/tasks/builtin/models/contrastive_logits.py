"""Image-text contrastive logits: normalised embeddings, learned scale, both ways, fp16."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

num_images = 32
num_texts = 32
embed_dim = 64

SHAPES = {
    "default": {"num_images": 32, "num_texts": 32, "embed_dim": 64},
    # CLIP ViT-L/H: a batch of 8192 pairs, 1024-dim embeddings
    "gpu": {"num_images": 8192, "num_texts": 8192, "embed_dim": 1024},
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07), dtype=torch.float16))

    def forward(self, image_features, text_features):
        image_features = F.normalize(image_features, dim=-1)
        text_features = F.normalize(text_features, dim=-1)
        scale = self.logit_scale.exp()
        logits_per_image = scale * image_features @ text_features.T
        return logits_per_image, logits_per_image.T


def get_inputs():
    return [torch.randn(num_images, embed_dim, dtype=torch.float16),
            torch.randn(num_texts, embed_dim, dtype=torch.float16)]


def get_init_inputs():
    return []
