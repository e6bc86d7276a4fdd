"""What several commands share, kept free of torch so that `--help` and usage errors answer
at once: the names their options accept, and the checks of paths and devices."""

from __future__ import annotations

# The names the options offer, copied from the registries they come from (which import torch
# to build the objects behind them); tests/test_cli_startup.py checks they stay equal.
STRATEGY_NAMES = ("best-of-n", "evolve", "judge", "library", "one-shot", "refine", "tune")
EXPORT_FORMATS = ("sft", "rl", "pairs", "torch-op")
GPU_NAMES = ("A100", "B200", "H100", "H200", "L40S")
DEFAULT_GPU = "H200"
