"""The candidate's process's half of gpukernels.py: which GPU kernels executed during a call,
and for how long, from the CUDA profiler (CUPTI through torch.profiler). The worker records;
the trusted process decides (gpukernels.problems)."""

from __future__ import annotations

import torch


class GpuKernels:
    """Context manager: .kernels is [[name, microseconds], ...] for the block it wrapped."""

    def __init__(self):
        self.kernels: list[list] = []

    def __enter__(self):
        from torch.profiler import ProfilerActivity, profile

        self._prof = profile(activities=[ProfilerActivity.CUDA])
        self._prof.__enter__()
        return self

    def __exit__(self, *exc):
        torch.cuda.synchronize()
        self._prof.__exit__(*exc)
        from torch.autograd import DeviceType

        self.kernels = [[e.name, float(e.time_range.elapsed_us())] for e in self._prof.events()
                        if e.device_type == DeviceType.CUDA]
        return False
