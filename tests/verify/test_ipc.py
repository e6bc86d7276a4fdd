"""What the trusted side accepts from a GPU worker's output manifest, checked without a GPU
(the mapping itself runs in tests/verify/test_gpu.py on the GPU machine)."""

import pytest
import torch

from warpsmith.verify.ipc import _claimed, _lists


def test_a_claimed_shape_and_dtype_become_a_meta_tensor_that_reads_nothing():
    t = _claimed({"shape": [4, 8], "dtype": "float16", "handle": "00" * 64, "offset": 0})
    assert t.device.type == "meta" and t.shape == (4, 8) and t.dtype == torch.float16


@pytest.mark.parametrize("entry", [
    {"shape": [4, -1], "dtype": "float32"},  # negative size
    {"shape": [4], "dtype": "Tensor"},  # not a dtype
    {"shape": [4], "dtype": "__import__"},
    {"shape": "4", "dtype": "float32"},
    {"shape": [1] * 17, "dtype": "float32"},  # absurd rank
    {"dtype": "float32"},
])
def test_malformed_entries_are_refused(entry):
    with pytest.raises(ValueError):
        _claimed(entry)


def test_an_output_list_must_hold_dicts():
    with pytest.raises(ValueError):
        _lists([[{"shape": [1]}], ["not a dict"]])
