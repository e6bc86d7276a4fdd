"""The candidate file out of a model's answer, as models really write them: reasoning in
<think> tags first, prose around the code, several fenced blocks (with or without a language
tag, in a list, inside a markdown block), an answer cut off inside its block, or no fence.

The reasoning is kept apart, not thrown away: dataset exports need it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import pyparse

THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)
FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")
MODELNEW = re.compile(r"^class\s+ModelNew\b", re.MULTILINE)
PYTHON_TAGS = {"python", "py", "python3", "py3", "ipython", "pytorch", "triton"}
MARKDOWN_TAGS = {"markdown", "md"}
# Where code starts in an answer with no fence.
CODE_START = re.compile(r"^(import |from |@|class |def |#|\"\"\"|[A-Z_]+ = )")


@dataclass(frozen=True)
class Block:
    tag: str  # the fence's language tag, lowercased; "" when it had none
    code: str
    closed: bool

    @property
    def defines_modelnew(self) -> bool:
        return bool(MODELNEW.search(self.code))


@dataclass(frozen=True)
class Extraction:
    code: str | None  # None: no candidate in the answer (see problem)
    reasoning: str = ""  # from <think> tags; a vendor's separate channel is in Choice.reasoning
    truncated: bool = False  # the chosen block was never closed: the answer was cut off
    blocks: int = 0  # fenced blocks found; 0 with code means it came unfenced
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.code is not None


def extract(answer: str) -> Extraction:
    reasoning, text, thinking_unfinished = split_reasoning(answer.replace("\r\n", "\n"))
    blocks = fenced_blocks(text)
    if blocks:
        return _from_blocks(blocks, reasoning)
    if thinking_unfinished:
        return Extraction(None, reasoning, problem="the answer ended inside its reasoning "
                          "(<think> never closed): raise max_tokens")
    code = unfenced_code(text)
    if code is None:
        return Extraction(None, reasoning, problem="no code in the answer: expected a "
                          "```python block defining class ModelNew")
    return Extraction(code, reasoning)


def split_reasoning(answer: str) -> tuple[str, str, bool]:
    """(reasoning, the rest, whether the reasoning never closed)."""
    close = THINK_CLOSE.search(answer)
    opened = THINK_OPEN.search(answer)
    if close is None:
        if opened is None:
            return "", answer, False
        return answer[opened.end():].strip(), answer[:opened.start()], True
    # A closing tag with no opening one: chat templates often put <think> in the prompt.
    start = opened.end() if opened and opened.start() < close.start() else 0
    head = answer[:opened.start()] if start else ""
    reasoning, rest = answer[start:close.start()].strip(), head + answer[close.end():]
    more, rest, unfinished = split_reasoning(rest)  # models sometimes think twice
    return "\n\n".join(r for r in (reasoning, more) if r), rest, unfinished


def fenced_blocks(text: str) -> list[Block]:
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        opening = FENCE_OPEN.match(lines[i])
        if not opening:
            i += 1
            continue
        end = _closing_line(lines, i + 1, opening.group("fence"))
        body = [_dedent(line, opening.group("indent")) for line in lines[i + 1:end]]
        tag = (opening.group("info").split() or [""])[0].lower()
        block = Block(tag, "\n".join(body).strip("\n") + "\n", end < len(lines))
        # An answer wrapped in a markdown block holds its real blocks inside.
        blocks += fenced_blocks(block.code) if tag in MARKDOWN_TAGS else [block]
        i = end + 1
    return [b for b in blocks if b.code.strip()]


def _closing_line(lines: list[str], start: int, fence: str) -> int:
    """The closing fence: the same character, at least as long, nothing after it."""
    closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    for j in range(start, len(lines)):
        if closing.match(lines[j]):
            return j
    return len(lines)


def _dedent(line: str, indent: str) -> str:
    return line[len(indent):] if line.startswith(indent) else line.lstrip(" \t")


def _from_blocks(blocks: list[Block], reasoning: str) -> Extraction:
    chosen = choose_block(blocks)
    if chosen is None:
        tags = ", ".join(sorted({b.tag or "untagged" for b in blocks}))
        return Extraction(None, reasoning, blocks=len(blocks),
                          problem=f"no Python block among the answer's blocks ({tags})")
    return Extraction(chosen.code, reasoning, not chosen.closed, len(blocks))


def choose_block(blocks: list[Block]) -> Block | None:
    """The last block defining ModelNew (a finished one before one cut off), else the last
    Python block, else the last untagged one."""
    for pool in ([b for b in blocks if b.defines_modelnew and b.closed],
                 [b for b in blocks if b.defines_modelnew],
                 [b for b in blocks if b.tag in PYTHON_TAGS],
                 [b for b in blocks if not b.tag]):
        if pool:
            return pool[-1]
    return None


def unfenced_code(text: str) -> str | None:
    """Code written without a fence: from its first statement on, with trailing prose
    dropped until it parses (left as is when nothing parses: the verifier reports why)."""
    if not MODELNEW.search(text):
        return None
    lines = text.strip().split("\n")
    start = next((i for i, line in enumerate(lines) if CODE_START.match(line)), 0)
    lines = lines[start:]
    for end in range(len(lines), max(len(lines) - 20, 0), -1):
        code = "\n".join(lines[:end])
        if MODELNEW.search(code) and _parses(code):
            return code.strip("\n") + "\n"
    return "\n".join(lines).strip("\n") + "\n"


def _parses(code: str) -> bool:
    try:
        pyparse.parse(code)
    except SyntaxError:
        return False
    return True
