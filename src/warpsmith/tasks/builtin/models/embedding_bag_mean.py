"""Sparse features pooled by an EmbeddingBag (mean) over ragged bags given by offsets, fp32."""

import torch
import torch.nn as nn

num_embeddings = 1000
embedding_dim = 32
batch_size = 32
total_indices = 160

SHAPES = {
    "default": {
        "num_embeddings": 1000, "embedding_dim": 32, "batch_size": 32, "total_indices": 160,
    },
    # a recommender table of 1M rows of 128, 16384 bags of 32 ids on average
    "gpu": {
        "num_embeddings": 1000000, "embedding_dim": 128, "batch_size": 16384,
        "total_indices": 524288,
    },
}


class Model(nn.Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.bag = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="mean")

    def forward(self, indices, offsets):
        return self.bag(indices, offsets)


def get_inputs():
    indices = torch.randint(0, num_embeddings, (total_indices,))
    starts = torch.randperm(total_indices - 1)[: batch_size - 1].sort().values + 1
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), starts])
    return [indices, offsets]


def get_init_inputs():
    return [num_embeddings, embedding_dim]
