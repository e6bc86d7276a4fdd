"""A model's raw completion (reasoning, prose, fenced blocks, <think> tags) turned into the
candidate source the verifier takes, the way `optimize` reads a model's answer
(prompts/extract.py), or into a `no_code` verdict when there is none.

One place for this, used by the reward service, `warpsmith.verify(completion=...)` and the RL
adapters (warpsmith.rl), so a completion scores the same through any of them. Pure: no
verifier, no torch.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..prompts.extract import Extraction, extract
from ..types import Verdict
from .shaping import NO_CODE


@dataclass(frozen=True)
class Candidate:
    source: str | None  # None: the completion holds no code; `verdict` says so
    verdict: Verdict | None
    extraction: Extraction


def from_completion(completion: str, task_name: str, device: str = "") -> Candidate:
    found = extract(completion)
    if found.ok:
        return Candidate(found.code, None, found)
    return Candidate(None, no_code_verdict(task_name, found.problem, device), found)


def no_code_verdict(task_name: str, problem: str, device: str = "") -> Verdict:
    # The feedback is the problem itself: what a model must change (write a ```python block
    # defining ModelNew, or raise max_tokens), in the words optimize's refine loop uses.
    problem = problem or "no code in the answer"
    return Verdict(status=NO_CODE, task=task_name, candidate="<completion>", device=device,
                   reasons=(problem,), feedback=f"No candidate was found: {problem}.")


def response_part(query: str, prompt: str | None) -> str:
    """The model's response in OpenRLHF's `query` (the prompt and the response decoded
    together): what follows the prompt, so a fenced block in the prompt (the reference
    PyTorch code) is never taken for the candidate. The whole query when the prompt is not
    found in it (a tokenizer whose decoding does not round-trip)."""
    if prompt and (at := query.find(prompt)) >= 0:
        return query[at + len(prompt):]
    return query
