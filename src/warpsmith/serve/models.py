"""What the reward service is configured with, and the bodies that cross HTTP (they make
/openapi.json). Pure data: no queue, no store, no verifier."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .shaping import RewardConfig, RewardParts


@dataclass(frozen=True)
class RewardSettings:
    token: str | None = None  # None serves without auth, and only with no_auth set
    no_auth: bool = False
    max_body_bytes: int = 4 << 20
    max_items: int = 64  # per request
    per_client: int = 4  # requests one client may have in flight at once
    max_queue: int = 1024  # items queued or running, all clients together
    retries: int = 1  # re-queues of an item whose executor call raised
    device: str | None = None  # None: cuda when a GPU is present, else cpu
    profile: str = "quick"
    store_path: Path | None = None  # None: config.db_path()
    task_dirs: tuple[Path, ...] = ()  # folders of task files servable by name, after builtin
    allow_task_source: bool = False  # task source is imported in this process, unsandboxed
    require_sandbox: bool = True  # refuse to start where candidates cannot run in one (jail)
    reward: RewardConfig = field(default_factory=RewardConfig)


class TaskSource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: str = Field(description="the text of a KernelBench-format task file")
    name: str | None = Field(None, description="a name for it; default inline-<hash>")


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task: str | TaskSource = Field(description="a task name (level1/relu) or a task's source")
    candidate: str | None = Field(None, description="the candidate file's text, verbatim: "
                                  "defines class ModelNew")
    completion: str | None = Field(None, description="a model's raw answer (reasoning, prose, "
                                   "``` fences, <think> tags): the candidate is extracted as "
                                   "`optimize` does; none found is status no_code")
    id: str | None = Field(None, max_length=200, description="echoed back; default the index")

    @model_validator(mode="after")
    def _one_text(self) -> Item:
        if (self.candidate is None) == (self.completion is None):
            raise ValueError("give exactly one of candidate (source) or completion (a model's "
                             "answer)")
        return self


class RewardOverrides(BaseModel):
    """Per-request changes to the service's reward settings (docs/reward-service.md)."""

    model_config = ConfigDict(extra="forbid")
    baseline: Literal["compile", "eager", "roofline"] | None = None
    scale: Literal["log2", "linear"] | None = None
    lo: float | None = None
    hi: float | None = None
    correct: float | None = None
    incorrect: float | None = None
    rejected: float | None = None
    speed_weight: float | None = None
    no_code: float | None = None


class VerifyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[Item] = Field(min_length=1)
    reward: RewardOverrides | None = None


class ItemResult(BaseModel):
    id: str
    task: str | None = None
    status: str = Field(description="the verdict's status, or 'error': not verified, see error")
    reward: float | None = Field(description="null: not judged here (needs_gpu, or an error)")
    reward_parts: RewardParts | None = None
    timing_measured: bool = False
    verdict: dict[str, Any] | None = None
    error: str | None = None
    attempts: int = Field(0, description="executor calls made for it; 0: answered from the "
                                         "store without queueing")
    queue_s: float = 0.0
    verify_s: float = 0.0


class VerifyResponse(BaseModel):
    items: list[ItemResult]
    reward_config: RewardConfig
    seconds: float


class OpenRLHFRequest(BaseModel):
    """What OpenRLHF's --remote_rm_url client POSTs (openrlhf/utils/agent.py,
    SingleTurnAgentExecutor._fetch_rewards_via_http): `query` is prompt and response decoded
    together, `prompts` the prompts, `labels` the dataset's label column: here, task names."""

    query: list[str] = Field(min_length=1)
    prompts: list[str] | None = None
    labels: list[str | None] | None = None


class OpenRLHFResponse(BaseModel):
    rewards: list[float] = Field(description="the shaped reward; 0 where not judged (see "
                                             "extra_logs.judged)")
    scores: list[float] = Field(description="1 for a passed kernel, else 0: for OpenRLHF's "
                                            "dynamic filtering")
    extra_logs: dict[str, list[float]] = Field(description="per-sample numbers OpenRLHF logs")


class Health(BaseModel):
    status: str
    version: str
    verifier: str
    workers: int
    queue_depth: int
    in_flight: int
    device: str
    profile: str
    auth: bool
    stored_answers: int = Field(0, description="items answered from the store, never queued")
    shared_answers: int = Field(0, description="items that waited on an identical candidate "
                                               "already being verified")
