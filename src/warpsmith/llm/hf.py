"""A local model through Hugging Face transformers: a folder (or hub id already in the local
cache) with a tokenizer that has a chat template. Runs on the GPU where there is one. A
local call costs no dollars, so its cost is 0."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace

from ..errors import UsageError
from .base import CallError, Choice, Request, Response, Usage

log = logging.getLogger(__name__)


def import_transformers():
    try:
        import transformers
    except ImportError as e:
        raise UsageError("hf: models need the transformers package: pip install "
                         "'warpsmith[hf]' (transformers and accelerate)") from e
    return transformers


class HFProvider:
    name = "hf"

    def __init__(self, path: str):
        transformers = import_transformers()
        import torch

        self.torch = torch
        self.model = path
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(path)
            self.lm = transformers.AutoModelForCausalLM.from_pretrained(path, dtype="auto")
        except OSError as e:
            raise UsageError(f"hf:{path}: no model there ({e}); give a folder holding a "
                             "transformers model and its tokenizer") from e
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.lm.to(self.device).eval()
        self._lock = threading.Lock()  # generate() on one model is not safe to share

    def complete(self, request: Request) -> Response:
        start = time.monotonic()
        with self._lock:
            try:
                response = self.generate(request)
            except (RuntimeError, ValueError, TypeError) as e:  # out of memory, bad template
                response = Response(self.name, self.model, cost_usd=0.0,
                                    error=CallError("local", f"{type(e).__name__}: {e}"))
        return replace(response, latency_s=time.monotonic() - start)

    def generate(self, request: Request) -> Response:
        torch = self.torch
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        inputs = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        inputs = {k: v.to(self.device) for k, v in inputs.items()}
        if request.seed is not None:
            torch.manual_seed(request.seed)
        sampling = request.temperature is not None and request.temperature > 0
        settings = {"do_sample": sampling, "max_new_tokens": request.max_tokens,
                    "num_return_sequences": request.n,
                    "pad_token_id": self.tokenizer.pad_token_id or self.tokenizer.eos_token_id}
        if sampling:
            settings["temperature"] = request.temperature
        settings.update(request.extra_body)  # generate() keywords: top_p, top_k, …
        with torch.inference_mode():
            out = self.lm.generate(**inputs, **settings)
        prompt_len = inputs["input_ids"].shape[1]
        return self._response(out[:, prompt_len:], prompt_len, request.max_tokens)

    def _response(self, generated, prompt_len: int, max_tokens: int) -> Response:
        choices, produced = [], 0
        for row in generated:
            ids = [int(t) for t in row if int(t) != self.tokenizer.pad_token_id]
            produced += len(ids)
            finish = "length" if len(ids) >= max_tokens else "stop"
            choices.append(Choice(self.tokenizer.decode(ids, skip_special_tokens=True), "",
                                  finish))
        return Response(self.name, self.model, tuple(choices),
                        Usage(prompt_len * len(choices), produced), cost_usd=0.0)
