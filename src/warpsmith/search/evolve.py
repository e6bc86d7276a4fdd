"""Evolution: a population split into islands, each a MAP-Elites archive of kernels keyed by
behaviour (archive.py), grown for `depth` generations of `samples` children each.

Generation 0 seeds every island from the first prompt, each seed pointed in its own direction.
After that, each island's slots choose their parents from its archive (slot 0 mutates a
tournament winner; odd slots cross a tournament winner with the elite of another behaviour;
other slots mutate a kernel picked for novelty) and the model writes the child: a mutation sees
its parent with the verdict's feedback, a crossover sees both parents. Every prompt shows the
island's earlier hypotheses and their results and asks for an IDEA and a PREDICTED_SPEEDUP line;
the store keeps both beside the measured gain (prompts/evolve.py says against what).

Islands evolve apart, so one lucky design does not take over the whole population; every
`migrate_every` generations each island's best moves to the next island (a ring).

Layout: islands = samples // 2, at most `max_islands`, so each island has two slots or more;
child k of a generation lives on island k % islands in slot k // islands. Its attempt is keyed
(chain=island, depth=generation, sample=generation * samples + k): unique in the run, and a
distinct sample number, so the response cache never hands one answer to two children.

Resuming replays exactly: every random choice comes from a generator seeded by (stream, island,
generation, slot), and children join the archives in k order after their whole generation is
in, not in the order their calls finished. A generation cut short by the budget ends the run.

On a device that times nothing (the CPU interpreter), an island whose best kernel passed has
nothing left to improve that could be measured: it stops asking, as refine's chains do, and the
run ends when every island has stopped.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field

from ..prompts import Prompt
from ..prompts import evolve as prompts
from ..prompts.evolve import Parent, Tried, baseline_speedup
from ..store.runs import Attempt
from .archive import Archive, Member, Plan, describe, fitness, migrate, plan
from .context import RunContext

log = logging.getLogger(__name__)


@dataclass
class Island:
    archive: Archive = field(default_factory=Archive)
    tried: list[Tried] = field(default_factory=list)  # every hypothesis tested here, in order

    def settled(self) -> bool:
        best = self.archive.best()
        return best is not None and best.item.passed and not best.item.verdict.timing_measured


@dataclass(frozen=True)
class Child:
    k: int  # its index in the generation
    island: int
    slot: int
    plan: Plan
    prompt: Prompt


class Evolve:
    def __init__(self, max_islands: int = 4, migrate_every: int = 2, tournament: int = 3):
        self.max_islands, self.migrate_every = max_islands, migrate_every
        self.tournament = tournament
        self.islands: list[Island] = []  # the last run's population, kept for inspection

    def run(self, ctx: RunContext) -> None:
        width = max(1, ctx.settings.samples)
        islands = self.islands = [Island() for _ in range(self.island_count(width))]
        generations = 0
        for gen in range(max(1, ctx.settings.depth)):
            children = self.next_generation(ctx, islands, gen, width)
            if not children:  # every island settled
                break
            made = ctx.parallel(lambda c, g=gen: self.make(ctx, c, g, width), children)
            for child, attempt in zip(children, made, strict=True):
                if attempt is not None:
                    self.record(islands[child.island], attempt)
            generations += 1
            if any(a is None for a in made):  # budget spent or interrupted
                break
            if self.migrate_every and (gen + 1) % self.migrate_every == 0:
                moved = migrate([i.archive for i in islands])
                log.debug("generation %d: %d elites migrated", gen, moved)
        ctx.note = summary(islands, generations)

    def island_count(self, width: int) -> int:
        return max(1, min(self.max_islands, width // 2))

    def next_generation(self, ctx: RunContext, islands: list[Island], gen: int,
                        width: int) -> list[Child]:
        children = []
        for k in range(width):
            i, slot = k % len(islands), k // len(islands)
            if gen > 0 and islands[i].settled():
                continue
            rng = random.Random(f"evolve:{ctx.settings.stream}:{i}:{gen}:{slot}")
            chosen = plan(islands[i].archive, slot, rng, self.tournament)
            # Prompts are built here, on one thread: building one parses the shipped examples,
            # and CPython 3.11's ast.parse is not safe on several threads at once.
            children.append(Child(k, i, slot, chosen,
                                  self.prompt(ctx, chosen, k, islands[i].tried)))
        return children

    def make(self, ctx: RunContext, child: Child, gen: int, width: int) -> Attempt | None:
        parents = [m.item for m in child.plan.parents]
        attempt = ctx.attempt(child.prompt, chain=child.island, depth=gen,
                              sample=gen * width + child.k,
                              parent=parents[0] if parents else None)
        if attempt is None:
            return None
        hypothesis = prompts.parse_hypothesis(attempt.response)
        attempt.idea, attempt.predicted_gain = hypothesis.idea, hypothesis.predicted_gain
        attempt.measured_gain = measured_gain(attempt, parents[0] if parents else None)
        attempt.co_parent_id = parents[1].id if len(parents) > 1 else None
        # Written again on a replay too: a run killed between the two writes is mended.
        ctx.store.set_hypothesis(attempt)
        return attempt

    def prompt(self, ctx: RunContext, chosen: Plan, k: int, tried: list[Tried]) -> Prompt:
        s = ctx.settings
        if chosen.op == "seed":
            return prompts.seed_prompt(ctx.task, s.language, s.gpu, seed=k)
        shown = [_parent(m.item) for m in chosen.parents]
        if chosen.op == "mutate":
            return prompts.mutation_prompt(ctx.task, shown[0], tried, s.language, s.gpu)
        return prompts.crossover_prompt(ctx.task, shown[0], shown[1], tried, s.language, s.gpu)

    def record(self, island: Island, attempt: Attempt) -> None:
        if attempt.verdict is None:  # the call failed: no hypothesis was tested
            return
        island.tried.append(Tried(attempt.idea, attempt.predicted_gain, attempt.measured_gain,
                                  attempt.status))
        if attempt.source is None:  # an answer with no code: nothing to breed from
            return
        speed = baseline_speedup(attempt.verdict)
        island.archive.add(Member(attempt.sample, fitness(attempt.status, speed),
                                  describe(attempt.source), attempt))


def measured_gain(child: Attempt, parent: Attempt | None) -> float | None:
    """The child's speedup over its baseline: the parent where the parent passed and was
    timed, else eager PyTorch. None while the child itself has no measured speed."""
    speed = baseline_speedup(child.verdict)
    if speed is None:
        return None
    base = baseline_speedup(parent.verdict) if parent is not None else None
    return speed / base if base else speed


def _parent(a: Attempt) -> Parent:
    return Parent(a.source or "", a.verdict, a.idea, a.predicted_gain, a.measured_gain)


def summary(islands: list[Island], generations: int) -> str:
    # A migrant sits in two archives: count kernels, not cells.
    elites = {m.item.id: m.item for i in islands for m in i.archive.elites()}
    verified = sum(a.passed for a in elites.values())
    return (f"evolve: {generations} generation(s) on {len(islands)} island(s); "
            f"{len(elites)} elite kernel(s) by behaviour, {verified} verified")
