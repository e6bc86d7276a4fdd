"""The library's own twin (sizes.twin_trace): each number that follows a size must follow the
right one."""

from itertools import combinations

from warpsmith.library import generate
from warpsmith.library.sizes import _growths


def test_growths_keep_no_ratio_of_two_sizes():
    # grown in proportion (16 by 1, 32 by 2), 32 read as 2 x 16 on the twin too
    sizes = [8, 16, 24, 32, 48, 64, 96, 128, 256, 10000]
    growth = _growths(sizes)
    assert len(set(growth.values())) == len(sizes)
    for u, v in combinations(sizes, 2):
        assert (u + growth[u]) * v != (v + growth[v]) * u, (u, v)


def test_timestep_embedding_divides_by_its_frequency_count():
    """`/ num_freqs` (32, a constructor argument) was bound as 2 x the batch (16): right at
    the declared shape, wrong at any twin whose batch and frequency count grew apart (the
    verifier's twin failed on the CPU and the GPU)."""
    source = generate("builtin/models/timestep_embedding_mlp").source
    assert "float(timesteps.shape[0])" not in source
    assert "float(args[0])" in source
