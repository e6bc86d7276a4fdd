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

        self.kernels = by_name((e.name, float(e.time_range.elapsed_us()))
                               for e in self._prof.events() if e.device_type == DeviceType.CUDA)
        return False


def by_name(kernels) -> list[list]:
    """[[name, total microseconds], ...] in the order each name first ran: a call that
    autotunes runs each config hundreds of times, and one entry a launch made an honest
    report of megabytes, past the trusted side's 1 MiB bound (`crashed` on the H200).
    Sums keep what the trusted side judges: which kernels ran and their share of the time."""
    totals: dict[str, float] = {}
    for name, us in kernels:
        totals[name] = totals.get(name, 0.0) + us
    return [[name, us] for name, us in totals.items()]
