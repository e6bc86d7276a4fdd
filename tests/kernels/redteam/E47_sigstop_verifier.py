# task: level1/relu
# expect: rejected
# layer: os
# exploit: E47 (the OS layer: SIGSTOP every other process, the verifier among them, whose
#   deadline is enforced by the stopped process itself, so verify() and any bench, search or
#   service around it hang for ever; the kernel is wrong). Caught by the static scan (os,
#   signal); with the scan off, the sandbox's PID namespace and uid leave nothing to stop.
import os
import signal

import torch
import torch.nn as nn

for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    if int(pid) not in (os.getpid(), 1):
        try:
            os.kill(int(pid), signal.SIGSTOP)
        except OSError:
            pass


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)
