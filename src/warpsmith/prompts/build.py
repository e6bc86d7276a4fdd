"""Prompts from parts: the task, the language's rules, the hardware card, the roofline floor,
verified examples and, after the first round, the previous attempt with its verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..llm.base import Message, Request
from ..tasks.describe import shape_details
from ..tasks.gpus import DEFAULT_GPU
from ..types import Task, Verdict
from . import templates
from .examples import Example, pick_examples
from .feedback import render_feedback
from .hardware import hardware_card
from .rules import check_language, rules_text


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str

    def messages(self) -> tuple[Message, ...]:
        return (Message("system", self.system), Message("user", self.user))

    def request(self, **sampling) -> Request:
        """A Request for a provider; sampling: temperature, max_tokens, seed, n, sample."""
        return Request(self.messages(), **sampling)


# Two: the shortest example is a shipped one (relu or softmax, whichever is not the task's
# family); the second is then one of the library's renderings, of another family again.
N_EXAMPLES = 2


def first_prompt(task: Task, language: str = "triton", gpu: str = DEFAULT_GPU,
                 examples: Sequence[Example] | None = None,
                 n_examples: int = N_EXAMPLES) -> Prompt:
    """examples=None picks n_examples from the example pool (prompts/examples.py); [] shows
    none."""
    return Prompt(system_text(language), "\n\n".join(
        _sections(task, language, gpu, examples, n_examples) + [templates.ANSWER_FORMAT]))


def refine_prompt(task: Task, previous: str, verdict: Verdict, language: str = "triton",
                  gpu: str = DEFAULT_GPU, examples: Sequence[Example] | None = None,
                  n_examples: int = N_EXAMPLES, attempt: int | None = None) -> Prompt:
    """Self-contained: the whole first prompt, then the previous attempt and its verdict, so
    a chain of any depth costs one prompt's tokens per round, not a growing conversation."""
    sections = _sections(task, language, gpu, examples, n_examples)
    sections += [templates.ANSWER_FORMAT, previous_attempt(previous, verdict, attempt)]
    return Prompt(system_text(language), "\n\n".join(sections))


def follow_up(verdict: Verdict) -> str:
    """The next user turn of a multi-turn conversation, after the model's answer."""
    return templates.FOLLOW_UP.format(feedback=render_feedback(verdict),
                                      next_step=next_step(verdict))


def system_text(language: str) -> str:
    return templates.SYSTEM.format(language_name=_language_name(language))


def previous_attempt(source: str, verdict: Verdict, attempt: int | None = None) -> str:
    label = f" (attempt {attempt})" if attempt is not None else ""
    return templates.PREVIOUS.format(label=label, source=source.strip(),
                                     feedback=render_feedback(verdict),
                                     next_step=next_step(verdict))


def next_step(verdict: Verdict) -> str:
    return templates.NEXT_STEP.get(verdict.status, templates.NEXT_STEP["incorrect"])


def _sections(task: Task, language: str, gpu: str, examples: Sequence[Example] | None,
              n_examples: int) -> list[str]:
    if examples is None:
        examples = pick_examples(task, language, n_examples)
    return [task_text(task, language), precision_text(task), rules_text(task, language),
            hardware_card(gpu), floor_text(task, gpu)] + [example_text(e) for e in examples]


def task_text(task: Task, language: str) -> str:
    return templates.TASK.format(language_name=_language_name(language), task_name=task.title,
                                 source=task.source.strip())


def precision_text(task: Task) -> str:
    tolerance = templates.TOLERANCE_TASK.format(tolerance=task.tolerance) if task.tolerance \
        else templates.TOLERANCE_DEFAULT
    shapes = "; ".join(f"{s.name}: " + ", ".join(f"{k}={v}" for k, v in s.values.items())
                       for s in task.shapes)
    return templates.PRECISION.format(dtype=task.dtype, tolerance=tolerance, shapes=shapes,
                                      tf32="allowed" if task.allow_tf32 else "not allowed")


def floor_text(task: Task, gpu: str) -> str:
    shape = task.shapes[-1].name  # the verifier times the last declared shape, the largest
    d = shape_details(task, shape, gpu)
    inputs = ", ".join(d["inputs"]) or "none"
    if d["floor_us"] is None:
        why = "uncounted ops: " + ", ".join(d["uncounted_ops"]) if d["uncounted_ops"] \
            else "no cost model"
        return templates.FLOOR_UNKNOWN.format(shape=shape, inputs=inputs, why=why)
    flops = f"{_si(d['flops'])}FLOP"
    if d["matmul_flops"]:
        flops += f" ({_si(d['matmul_flops'])}FLOP of them in products for tensor cores)"
    return templates.FLOOR.format(shape=shape, inputs=inputs, bytes=f"{_si(d['bytes'])}B",
                                  flops=flops, gpu=gpu.upper(), floor=_duration(d["floor_us"]),
                                  bound=d["floor_bound"])


def example_text(example: Example) -> str:
    reference = example.reference()
    if reference is None:
        return templates.EXAMPLE_NO_REFERENCE.format(answer=example.source.strip())
    return templates.EXAMPLE.format(task=example.task, reference=reference.strip(),
                                    answer=example.source.strip())


def _language_name(language: str) -> str:
    return templates.LANGUAGE_NAMES[check_language(language)]


def _si(value: float) -> str:
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g} {prefix}"
    return f"{value:g} "


def _duration(us: float) -> str:
    return f"{us / 1000:.3g} ms" if us >= 1000 else f"{us:.3g} µs"
