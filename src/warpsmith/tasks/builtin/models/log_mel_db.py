"""Log-mel features: mel filterbank, clamped log10, a floor 8 dB below the max, fp32."""

import torch
import torch.nn as nn

batch_size = 2
n_freqs = 101
n_frames = 60
n_mels = 40

SHAPES = {
    "default": {"batch_size": 2, "n_freqs": 101, "n_frames": 60, "n_mels": 40},
    # Whisper: 80 mels from 201 bins, 3000 frames (30 s), batch 64
    "gpu": {"batch_size": 64, "n_freqs": 201, "n_frames": 3000, "n_mels": 80},
}


class Model(nn.Module):
    def __init__(self, n_mels, n_freqs):
        super().__init__()
        # triangular-ish non-negative filters; a real bank is built from mel-spaced edges
        filters = torch.rand(n_mels, n_freqs) * (torch.rand(n_mels, n_freqs) < 0.15)
        self.register_buffer("mel_filters", filters)

    def forward(self, magnitudes):
        mel_spec = self.mel_filters @ magnitudes
        log_spec = torch.clamp(mel_spec, min=1e-10).log10()
        log_spec = torch.maximum(log_spec, log_spec.amax(dim=(-2, -1), keepdim=True) - 8.0)
        return (log_spec + 4.0) / 4.0


def get_inputs():
    stft = torch.randn(batch_size, n_freqs, n_frames, dtype=torch.complex64)
    return [stft.abs() ** 2]


def get_init_inputs():
    return [n_mels, n_freqs]
