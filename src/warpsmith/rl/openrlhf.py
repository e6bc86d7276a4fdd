"""OpenRLHF's remote reward, two ways:

- over HTTP: `--remote_rm_url http://HOST:8000/v1/openrlhf?token=TOKEN` against
  `warpsmith serve reward` (serve/reward.py answers it with `response_body` below);
- in its process: `--remote_rm_url $(python -c "import warpsmith.rl.openrlhf as m;
  print(m.__file__)")`: OpenRLHF loads a .py file's `reward_func(queries, prompts, labels)`
  (openrlhf/utils/agent.py, SingleTurnAgentExecutor), which verifies here.

Either way `labels` (the dataset's --label_key column) names each sample's task, and `query`
is the prompt and the response decoded together: the response is what follows the prompt.
OpenRLHF makes a tensor of every value, so nothing is null: a sample not judged (needs_gpu,
too_large, an error) gets reward 0 and extra_logs.judged 0.
"""

from __future__ import annotations

from collections.abc import Sequence

# absolute: OpenRLHF loads this file by its path, outside the package
from warpsmith.rl.scoring import Score, scorer_for

_scorer = None


def reward_func(queries: Sequence[str], prompts: Sequence[str] | None = None,
                labels: Sequence[str | None] | None = None, **kwargs) -> dict:
    from warpsmith.serve.completions import response_part

    global _scorer
    _scorer = _scorer or scorer_for()
    prompts = prompts or [""] * len(queries)
    labels = labels or [None] * len(queries)
    items = [(label or "", response_part(q, p))
             for q, p, label in zip(queries, prompts, labels, strict=True)]
    return response_body(_scorer.score(items))


def response_body(scores: Sequence[Score]) -> dict:
    flags = {"judged": [s.judged for s in scores], "passed": [s.passed for s in scores],
             "no_code": [s.status == "no_code" for s in scores],
             "error": [s.status in ("error", "unreachable") for s in scores]}
    return {"rewards": [s.reward if s.judged else 0.0 for s in scores],
            "scores": [float(s.passed) for s in scores],  # 0-1, for its dynamic filtering
            "extra_logs": {k: [float(v) for v in vs] for k, vs in flags.items()}}
