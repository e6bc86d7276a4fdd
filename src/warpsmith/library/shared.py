"""One definition for kernels that differ only in their names: a ResNet's hundred
convolutions and batch norms are a handful of distinct kernels (a geometry and an epilogue
each), written once each. Without this a level-3 model's candidate ran past the verifier's
source limit (static.MAX_SOURCE_BYTES: 945k characters for ResNet101, against 262k).

Two kernels are the same when their text is equal once their names and their pointer and
scalar parameters are renamed by position: the launches pass those positionally (only
constexpr parameters by keyword, and those keep their names), so a launch of the second
calls the first with the same arguments in the same places.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

from .family import Piece

_DEF = re.compile(r"(?=\n@triton\.jit\ndef \w+\()")
_HEAD = re.compile(r"\n@triton\.jit\ndef (\w+)\((.*?)\):\n", re.S)


@dataclass(frozen=True)
class Shared:
    kernels: str  # the kernels' source, each distinct kernel once
    launch: tuple[str, ...]  # every piece's launch lines, naming the kernel kept


def share(pieces: list[Piece]) -> Shared:
    seen: dict[str, str] = {}  # canonical text -> the name it was first written under
    kernels, launch = [], []
    for piece in pieces:
        renames = {}
        for chunk in _DEF.split(piece.kernel):
            head = _HEAD.match(chunk)
            if head is None:  # text before the first kernel: kept as it is
                kernels.append(chunk)
                continue
            key = _canonical(chunk, head)
            if key in seen:
                renames[head.group(1)] = seen[key]
            else:
                seen[key] = head.group(1)
                kernels.append(chunk)
        launch += [_renamed(line, renames) for line in piece.launch]
    return Shared("".join(kernels), tuple(launch))


def _canonical(chunk: str, head: re.Match) -> str:
    """The kernel's text with its own names renamed in order of first use (its name, its
    positional parameters, its locals: a row kernel's `v9mean` or a leaf's `p_bn1_weight`):
    equal for two kernels only where one is the other under a one-to-one renaming. Kept as
    they are: attributes (`tl.load`, `.to`), what is called (another jit function), keyword
    arguments, constexpr parameters (passed by keyword), names without a lower-case letter
    (sizes, module constants) and Python's words."""
    keep = {p.split(":")[0].strip() for p in head.group(2).split(",") if "constexpr" in p}
    names: dict[str, str] = {}

    def rename(m: re.Match) -> str:
        word = m.group(0)
        if word[0] in "'\"#":  # a string as it is; a comment says nothing the code does
            return "" if word[0] == "#" else word
        if word in keep or word in _WORDS or not any(c.islower() for c in word):
            return word
        return names.setdefault(word, f"_n{len(names)}_")

    return _NAME.sub(rename, re.sub(rf"\b{head.group(1)}\b", "KERNEL", chunk))


# a name not after a dot, not called, not a keyword argument (`mask=`, not `v1 = ` or `==`)
_NAME = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|#[^\n]*|"
                   r"(?<![.\w])[A-Za-z_]\w*(?!\w)(?!\s*\()(?!=(?!=))")
_WORDS = set(keyword.kwlist) | {"tl", "triton", "math"}


def _renamed(line: str, renames: dict[str, str]) -> str:
    for old, new in renames.items():
        line = re.sub(rf"\b{old}\b", new, line)
    return line
