"""Prompts of the evolve strategy: a seed (a fresh kernel, each seed pointed in its own
direction), a mutation (one parent improved) and a crossover (two parents combined). Each asks
the model to state the idea it tests and the speedup it predicts before the code, so a run reads
as hypotheses beside results; `parse_hypothesis` reads the two lines back from the answer.

A prediction is relative to a baseline the prompt names: the parent (the better parent, for a
crossover) when it passed and was timed, else eager PyTorch. The measured gain is taken against
the same baseline (`baseline_speedup`), so the two numbers can be compared.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..tasks.gpus import DEFAULT_GPU
from ..types import Task, Verdict
from .build import Prompt, first_prompt, next_step
from .extract import FENCE_OPEN, split_reasoning
from .feedback import render_feedback

HYPOTHESIS = """\
## State your hypothesis first

Before the code, write these two lines, then the ```python block:

IDEA: <one sentence: the change this kernel makes, and why it should help>
PREDICTED_SPEEDUP: <one number such as 1.3x: how much faster than {baseline} you expect it \
to run>

The prediction is recorded beside the measured speedup."""

# Seeds differ in where they start, so islands begin apart instead of from one answer drawn
# several times. Seed 0 gets no direction: the plainest correct kernel is a parent worth having.
SEED_DIRECTIONS = (
    "",
    "Memory traffic: read and write every element once, with wide, coalesced accesses and "
    "enough work per program to keep the memory system busy.",
    "Fusion: do the whole computation in as few kernel launches as possible, keeping "
    "intermediate values in registers or shared memory.",
    "Work decomposition: choose how the work is split across programs (tiles, loops over a "
    "reduction dimension, persistent programs) to fit the hardware.",
)

DIRECTION = """\
## Starting direction

{direction} Other attempts explore other directions: commit to this one."""

PARENT = """\
## {title}

```python
{source}
```

{hypothesis}

### What the verifier found

{feedback}"""

TRIED = """\
## Ideas already tested in this line of search

{lines}

Do not repeat an idea that failed or gained nothing; build on what worked."""

MUTATE = """\
## What to do now

{next_step} Make one focused change, the one you expect to gain the most, and keep everything \
else that works."""

CROSSOVER = """\
## What to do now

Combine the two parents into one kernel: start from parent A (the fitter one) and bring in \
the idea of parent B that should help it most{repair}. Send the whole file."""

CROSSOVER_REPAIR = ", and fix what the verifier found in A"
MAX_TRIED = 8  # the most recent hypotheses shown; older ones cost tokens and rarely help


@dataclass(frozen=True)
class Parent:
    source: str
    verdict: Verdict
    idea: str | None = None
    predicted_gain: float | None = None
    measured_gain: float | None = None


@dataclass(frozen=True)
class Tried:
    idea: str | None
    predicted_gain: float | None
    measured_gain: float | None
    status: str


@dataclass(frozen=True)
class Hypothesis:
    idea: str | None = None
    predicted_gain: float | None = None


def baseline_speedup(verdict: Verdict | None) -> float | None:
    """A parent's speedup against eager, where there is one to measure a child against."""
    ok = verdict is not None and verdict.passed and verdict.timing_measured
    return verdict.speedup_vs_eager or None if ok else None


def seed_prompt(task: Task, language: str = "triton", gpu: str = DEFAULT_GPU,
                seed: int = 0) -> Prompt:
    base = first_prompt(task, language, gpu)
    direction = SEED_DIRECTIONS[seed % len(SEED_DIRECTIONS)]
    sections = [base.user, DIRECTION.format(direction=direction) if direction else "",
                HYPOTHESIS.format(baseline="eager PyTorch")]
    return Prompt(base.system, _join(sections))


def mutation_prompt(task: Task, parent: Parent, tried: Sequence[Tried] = (),
                    language: str = "triton", gpu: str = DEFAULT_GPU) -> Prompt:
    base = _base(task, language, gpu, (parent,))
    sections = [base.user, parent_text("The parent kernel", parent), tried_text(tried),
                HYPOTHESIS.format(baseline=_baseline(parent)),
                MUTATE.format(next_step=next_step(parent.verdict))]
    return Prompt(base.system, _join(sections))


def crossover_prompt(task: Task, a: Parent, b: Parent, tried: Sequence[Tried] = (),
                     language: str = "triton", gpu: str = DEFAULT_GPU) -> Prompt:
    """`a` is the fitter parent: the prediction, like the measured gain, is against it."""
    base = _base(task, language, gpu, (a, b))
    sections = [base.user, parent_text("Parent A", a), parent_text("Parent B", b),
                tried_text(tried), HYPOTHESIS.format(baseline=_baseline(a, "parent A")),
                CROSSOVER.format(repair="" if a.verdict.passed else CROSSOVER_REPAIR)]
    return Prompt(base.system, _join(sections))


def _base(task: Task, language: str, gpu: str, parents: Sequence[Parent]) -> Prompt:
    # A verified parent shows working code for this very task: the generic example would only
    # cost tokens. With none, the example is the only working kernel the model sees.
    working = any(p.verdict.passed for p in parents)
    return first_prompt(task, language, gpu, examples=[] if working else None)


def _baseline(parent: Parent, name: str = "the parent kernel") -> str:
    return name if baseline_speedup(parent.verdict) else "eager PyTorch"


def parent_text(title: str, parent: Parent) -> str:
    return PARENT.format(title=title, source=parent.source.strip(),
                         hypothesis=_hypothesis_line(parent),
                         feedback=render_feedback(parent.verdict))


def _hypothesis_line(p: Parent) -> str:
    if not p.idea:
        return "Its idea was not stated."
    return f"Its idea: {p.idea} (predicted {_gain(p.predicted_gain)}, measured " \
           f"{_gain(p.measured_gain)})."


def tried_text(tried: Sequence[Tried]) -> str:
    if not tried:
        return ""
    lines = [f"- {t.idea or '(no idea stated)'}: predicted {_gain(t.predicted_gain)}; "
             f"{_result(t)}" for t in tried[-MAX_TRIED:]]
    return TRIED.format(lines="\n".join(lines))


def _result(t: Tried) -> str:
    if t.status != "passed":
        return t.status
    return f"passed, measured {_gain(t.measured_gain)}" if t.measured_gain else \
        "passed (not timed)"


def _gain(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f}x"


def _join(sections: Sequence[str]) -> str:
    return "\n\n".join(s for s in sections if s)


# The two lines, as models write them: "IDEA:", "**Idea:**", "- Predicted speedup = ~1.3x".
LINE = r"^[\s>*_#`-]*(?:{key})[\s*_`]*[:=–-][\s*_`]*(?P<value>.*?)[\s*_`]*$"
IDEA_LINE = re.compile(LINE.format(key=r"idea|hypothesis"), re.IGNORECASE | re.MULTILINE)
GAIN_LINE = re.compile(LINE.format(key=r"(?:predicted|expected|estimated)[ _-]?"
                                       r"(?:speed[ _-]?up|gain)"),
                       re.IGNORECASE | re.MULTILINE)
NUMBER = r"(\d+(?:\.\d+)?(?:e[+-]?\d+)?)"
RANGE = re.compile(rf"{NUMBER}\s*[x×]?\s*(?:-|–|to)\s*{NUMBER}\s*(?:x|×|times)?", re.IGNORECASE)
TIMES = re.compile(rf"{NUMBER}\s*(?:x\b|×|times\b)", re.IGNORECASE)
PERCENT = re.compile(rf"([+-]?){NUMBER}\s*%")
BARE = re.compile(rf"^\W*{NUMBER}")
MAX_IDEA = 400
MAX_GAIN = 1000.0  # beyond this a "prediction" is a typo or a joke, not a hypothesis


def parse_hypothesis(answer: str) -> Hypothesis:
    """The IDEA and PREDICTED_SPEEDUP lines of an answer; None for what is missing or not a
    number. Looked for outside code first, so a comment in the kernel does not win over the
    stated lines, and inside code only when the prose has none."""
    _, text, _ = split_reasoning(answer.replace("\r\n", "\n"))
    prose = _outside_code(text)
    idea = _first(IDEA_LINE, prose) or _first(IDEA_LINE, text)
    gain = _first(GAIN_LINE, prose) or _first(GAIN_LINE, text)
    idea = idea.replace("**", "").strip()[:MAX_IDEA] if idea else None  # markdown bold
    return Hypothesis(idea or None, parse_gain(gain) if gain else None)


def _first(pattern: re.Pattern, text: str) -> str | None:
    for match in pattern.finditer(text):
        if match.group("value").strip():
            return match.group("value").strip()
    return None


def _outside_code(text: str) -> str:
    kept, inside = [], False
    for line in text.split("\n"):
        if FENCE_OPEN.match(line):
            inside = not inside
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


def parse_gain(value: str) -> float | None:
    """"1.3x", "~1.3×", "1.2-1.5x" (the middle), "30% faster", "+30%", "1.3"."""
    gain = None
    if m := RANGE.search(value):
        gain = (float(m.group(1)) + float(m.group(2))) / 2
    elif m := TIMES.search(value):
        gain = float(m.group(1))
    elif m := PERCENT.search(value):
        slower = m.group(1) == "-" or "slower" in value.lower()
        gain = 1 + (-1 if slower else 1) * float(m.group(2)) / 100
    elif m := BARE.search(value):
        gain = float(m.group(1))
    return round(gain, 4) if gain is not None and 0 < gain <= MAX_GAIN else None
