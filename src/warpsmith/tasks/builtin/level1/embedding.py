"""Embedding lookup: gather rows of an fp32 table (nn.Embedding) by integer token ids."""

import torch
import torch.nn as nn

NUM_EMBEDDINGS = 131072
EMBEDDING_DIM = 4096
BATCH = 32
SEQ = 4096

SHAPES = {
    "small": {"NUM_EMBEDDINGS": 67, "EMBEDDING_DIM": 37, "BATCH": 3, "SEQ": 29},
    # Table 2.1 GB, 131k ids gather 2.1 GB and write 2.1 GB ≈ 4.3 GB moved, ~1-1.5 ms eager.
    "gpu": {"NUM_EMBEDDINGS": 131072, "EMBEDDING_DIM": 4096, "BATCH": 32, "SEQ": 4096},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.embedding = nn.Embedding(num_embeddings, embedding_dim)

    def forward(self, ids):
        return self.embedding(ids)


def get_inputs():
    return [torch.randint(0, NUM_EMBEDDINGS, (BATCH, SEQ))]


def get_init_inputs():
    return [NUM_EMBEDDINGS, EMBEDDING_DIM]
