"""Distillation loss: KL(teacher || student) on temperature-scaled log-probs, batchmean, fp32."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 32
num_classes = 100
temperature = 2.0

SHAPES = {
    "default": {"batch_size": 32, "num_classes": 100},
    # LM distillation: 2048 tokens over a 32000 vocabulary
    "gpu": {"batch_size": 2048, "num_classes": 32000},
}


class Model(nn.Module):
    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature

    def forward(self, student_logits, teacher_logits):
        t = self.temperature
        student = F.log_softmax(student_logits / t, dim=-1)
        teacher = F.log_softmax(teacher_logits / t, dim=-1)
        return F.kl_div(student, teacher, reduction="batchmean", log_target=True) * (t * t)


def get_inputs():
    return [torch.randn(batch_size, num_classes) * 3, torch.randn(batch_size, num_classes) * 3]


def get_init_inputs():
    return [temperature]
