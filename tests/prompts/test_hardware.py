"""Hardware cards from the GPU table."""

import pytest

from warpsmith.errors import UsageError
from warpsmith.prompts import hardware_card
from warpsmith.tasks import GPUS


@pytest.mark.parametrize("gpu", sorted(GPUS))
def test_every_gpu_has_a_card(gpu):
    card = hardware_card(gpu)
    assert f"NVIDIA {gpu}" in card and "None" not in card
    assert f"{GPUS[gpu].sms} streaming multiprocessors" in card


def test_h200_measured_and_peak():
    card = hardware_card("h200")
    assert "4.22 TB/s measured (4.8 TB/s datasheet peak)" in card
    assert "bf16 701 TFLOP/s measured (989 TFLOP/s datasheet peak)" in card
    assert "(strict fp32): 51 TFLOP/s measured" in card


def test_unknown_fields_say_so():
    assert "L2 cache n/a" in hardware_card("B200")


def test_unknown_gpu():
    with pytest.raises(UsageError, match="H200"):
        hardware_card("V100")
