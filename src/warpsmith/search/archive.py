"""The evolve strategy's population, kept pure (no model, no store, no verifier): a behaviour
descriptor read from a kernel's source, a fitness read from its verdict, and per island a
MAP-Elites archive that keeps the fittest kernel of each behaviour, with the parent selection
and migration that run on it.

The descriptor is static and deterministic, read with regular expressions rather than an AST so
that a kernel that does not even parse still gets a cell (the idea may be right and the syntax
wrong). Comments are ignored. Its axes are the design choices that separate kernels:

  kernels  how many kernels the file defines (@triton.jit, __global__), capped at 3: fusion
  dot      whether it uses the matrix units (tl.dot, mma, wmma)
  loop     none; loop (a loop inside a kernel: tiling over a reduction or K dimension); or
           persistent (programs stride over tiles by the grid size)
  block    the largest literal block or tile size, bucketed: derived (no literal: computed
           from the shape at run time), small (<= 128), medium (<= 1024), large
  access   flat offsets; strided (explicit strides); block (block pointers, tensor descriptors)
  tuned    whether an autotuner picks the configuration

Axes are coarse on purpose: a population holds tens of kernels, and a cell per cosmetic
difference would make every kernel an elite and the archive no filter at all.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

TRITON_KERNEL = re.compile(r"^\s*@triton\.jit\b", re.MULTILINE)
CUDA_KERNEL = re.compile(r"\b__global__\b")
DOT = re.compile(r"\btl\.dot(_scaled)?\b|\bwmma::|\bmma(\.sync|_sync)\b|\bmma\(")
PY_LOOP = re.compile(r"^\s*for\b.*\bin\b.*\brange\(.*$", re.MULTILINE)
C_LOOP = re.compile(r"\bfor\s*\([^;]*;[^;]*;[^)]*\)")
PERSISTENT = re.compile(r"num_programs\s*\(|\bgridDim\.")
BLOCK = re.compile(r"(?<!\w)['\"]?(?:BLOCK|TILE|THREADS|NUM_THREADS|block_size|threads)\w*['\"]?\s*"
                   r"[:=]\s*(\d+)\b", re.IGNORECASE)
LAUNCH = re.compile(r"<<<[^,>]+,\s*(\d+)")  # a CUDA launch's literal threads per block
BLOCK_POINTER = re.compile(r"make_block_ptr|make_tensor_descriptor|TensorDescriptor|cp\.async")
STRIDE = re.compile(r"\bstride")
TUNED = re.compile(r"@triton\.autotune\b|triton\.Config\(")
COMMENT = re.compile(r"#(?!\s*(?:include|define|pragma)\b).*$", re.MULTILINE)
BUCKETS = ((0, "derived"), (128, "small"), (1024, "medium"))  # above the last: "large"

# Passed > incorrect (it runs) > it dies or looks implausibly fast > broke a rule > does not
# build: a broken kernel that runs is closer to a working one than one that does not compile.
STATUS_RANK = {"passed": 4, "incorrect": 3, "runtime_error": 2, "timeout": 2, "crashed": 2,
               "suspect": 2, "rejected": 1}


@dataclass(frozen=True)
class Behaviour:
    kernels: int
    dot: bool
    loop: str
    block: str
    access: str
    tuned: bool

    def label(self) -> str:
        kernels = f"{self.kernels}{'+' if self.kernels >= 3 else ''} kernel" + \
            ("s" if self.kernels != 1 else "")
        parts = [kernels, "tl.dot" if self.dot else "", f"{self.loop} loop"
                 if self.loop != "none" else "", f"{self.block} block size", self.access,
                 "autotuned" if self.tuned else ""]
        return ", ".join(p for p in parts if p)


def describe(source: str) -> Behaviour:
    code = COMMENT.sub("", source)
    kernel_text = code if CUDA_KERNEL.search(code) else _triton_bodies(code)
    return Behaviour(kernels=min(3, len(TRITON_KERNEL.findall(code)) +
                                 len(CUDA_KERNEL.findall(code))),
                     dot=bool(DOT.search(code)), loop=_loop(kernel_text),
                     block=_bucket(_largest_block(code)), access=_access(code, kernel_text),
                     tuned=bool(TUNED.search(code)))


def _triton_bodies(code: str) -> str:
    """The lines of every @triton.jit function: its def and everything indented under it."""
    lines, out, i = code.split("\n"), [], 0
    while i < len(lines):
        if not TRITON_KERNEL.match(lines[i]):
            i += 1
            continue
        while i < len(lines) and not lines[i].lstrip().startswith("def "):
            i += 1  # more decorators between @triton.jit and the def
        if i == len(lines):
            break
        indent = len(lines[i]) - len(lines[i].lstrip())
        out.append(lines[i])
        i += 1
        while i < len(lines) and (not lines[i].strip() or
                                  len(lines[i]) - len(lines[i].lstrip()) > indent):
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def _loop(kernel_text: str) -> str:
    loops = PY_LOOP.findall(kernel_text) + C_LOOP.findall(kernel_text)
    if any(PERSISTENT.search(loop) for loop in loops):
        return "persistent"
    return "tiled" if loops else "none"


def _largest_block(code: str) -> int:
    sizes = [int(m.group(1)) for m in BLOCK.finditer(code)]
    sizes += [int(m.group(1)) for m in LAUNCH.finditer(code)]
    return max(sizes, default=0)


def _bucket(size: int) -> str:
    for limit, name in BUCKETS:
        if size <= limit:
            return name
    return "large"


def _access(code: str, kernel_text: str) -> str:
    if BLOCK_POINTER.search(code):
        return "block"
    return "strided" if STRIDE.search(kernel_text) else "flat"


def fitness(status: str, speedup: float | None = None) -> tuple[int, float]:
    """Status first, then the measured speedup against eager (0 when untimed), so that on a
    device that times nothing the search still climbs from broken to correct."""
    rank = STATUS_RANK.get(status, 0)
    return rank, (speedup or 0.0) if status == "passed" else 0.0


@dataclass(frozen=True)
class Member:
    order: int  # its place in the run (the attempt's sample number): ties go to the older
    fitness: tuple[int, float]
    behaviour: Behaviour
    item: Any = field(default=None, compare=False)  # the strategy's record (an Attempt)


def rank(m: Member) -> tuple:
    return m.fitness, -m.order


class Archive:
    """MAP-Elites: one elite per behaviour cell; a newcomer takes a cell only by beating its
    elite, so a tie keeps the older kernel (and a replayed run the same one)."""

    def __init__(self) -> None:
        self.cells: dict[Behaviour, Member] = {}

    def add(self, member: Member) -> bool:
        old = self.cells.get(member.behaviour)
        if old is not None and member.fitness <= old.fitness:
            return False
        self.cells[member.behaviour] = member
        return True

    def elites(self) -> list[Member]:
        return sorted(self.cells.values(), key=lambda m: m.order)

    def best(self) -> Member | None:
        return max(self.cells.values(), key=rank, default=None)

    def __len__(self) -> int:
        return len(self.cells)


def tournament(members: list[Member], rng: random.Random, size: int) -> Member:
    """The fittest of `size` drawn at random: the best most of the time, not always."""
    return max(rng.sample(members, min(size, len(members))), key=rank)


def novel(members: list[Member], rng: random.Random,
          away_from: Behaviour | None = None) -> Member | None:
    """Uniform over behaviour cells, not over kernels, so a rare design is as likely as a
    crowded one. Only cells whose elite reaches the best status present: while some kernels
    work, a call is not spent repairing a broken design for variety's sake."""
    others = [m for m in members if m.behaviour != away_from]
    if not others:
        return None
    top = max(m.fitness[0] for m in others)
    return rng.choice([m for m in others if m.fitness[0] == top])


@dataclass(frozen=True)
class Plan:
    op: str  # seed (a fresh kernel), mutate (one parent improved), crossover (two combined)
    parents: tuple[Member, ...] = ()


def plan(archive: Archive, slot: int, rng: random.Random, size: int = 3) -> Plan:
    """What an island's slot makes this generation. Slot 0 exploits (mutates a tournament
    winner); odd slots cross a tournament winner with the elite of another behaviour; other
    slots mutate a kernel picked for novelty. An empty island starts again from seeds."""
    elites = archive.elites()
    if not elites:
        return Plan("seed")
    if slot == 0:
        return Plan("mutate", (tournament(elites, rng, size),))
    if slot % 2 == 1:
        first = tournament(elites, rng, size)
        second = novel(elites, rng, away_from=first.behaviour)
        if second is not None:  # the fitter parent goes first: gains are measured from it
            return Plan("crossover", tuple(sorted((first, second), key=rank, reverse=True)))
    return Plan("mutate", (novel(elites, rng),))


def migrate(archives: list[Archive]) -> int:
    """Ring migration: each island's best goes to the next island, where it takes its cell
    only if it beats the elite there. Bests are taken before any move, so one migration moves
    a kernel one island at most. Returns how many cells changed."""
    if len(archives) < 2:
        return 0
    bests = [a.best() for a in archives]
    return sum(archives[(i + 1) % len(archives)].add(b) for i, b in enumerate(bests)
               if b is not None)
