"""Recommender feature interaction: pairwise dot products of dense and sparse embeddings, fp16."""

import torch
import torch.nn as nn

batch_size = 32
num_sparse_features = 12
embedding_dim = 16

SHAPES = {
    "default": {"batch_size": 32, "num_sparse_features": 12, "embedding_dim": 16},
    # DLRM on Criteo: 26 sparse features of 128 dims, batch 16384
    "gpu": {"batch_size": 16384, "num_sparse_features": 26, "embedding_dim": 128},
}


class Model(nn.Module):
    def forward(self, dense, sparse):
        batch, dim = dense.shape
        t = torch.cat([dense.unsqueeze(1), sparse], dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        n = t.shape[1]
        li, lj = torch.tril_indices(n, n, offset=-1, device=dense.device)
        z_flat = z[:, li, lj]
        return torch.cat([dense, z_flat], dim=1)


def get_inputs():
    dense = torch.randn(batch_size, embedding_dim, dtype=torch.float16)
    sparse = torch.randn(batch_size, num_sparse_features, embedding_dim, dtype=torch.float16)
    return [dense, sparse]


def get_init_inputs():
    return []
