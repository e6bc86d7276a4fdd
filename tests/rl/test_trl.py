"""warpsmith.rl.trl: called as TRL calls a reward function, and by TRL's own GRPOTrainer
training a tiny randomly initialised model (built here: nothing is downloaded)."""

import asyncio
from pathlib import Path

import pytest

from warpsmith.errors import UsageError
from warpsmith.rl.scoring import LocalScorer, Score
from warpsmith.rl.trl import async_reward_function, reward_function

KERNELS = Path(__file__).parent.parent / "kernels"
GOOD = (KERNELS / "good" / "relu_triton.py").read_text()
FENCED = f"Sure.\n```python\n{GOOD}```\n"
PROSE = "I am not sure how to write it."


class Recorded:
    """A scorer answering from a table, recording what it was asked."""

    def __init__(self, table: dict):
        self.table, self.asked = table, []

    def score(self, items):
        self.asked += list(items)
        return [self.table[c] for _, c in items]


def test_called_the_way_grpo_trainer_calls_it():
    """TRL's keywords (trl/trainer/grpo_trainer.py, _calculate_rewards): prompts,
    completions, completion_ids, each dataset column, trainer_state, log_extra, log_metric."""
    scorer = Recorded({"A": Score("level1/relu", "passed", 1.0),
                       "B": Score("level1/relu", "needs_gpu", None),
                       "C": Score("level1/relu", "no_code", 0.0)})
    metrics, extra = {}, {}
    reward = reward_function(scorer, task_column="op")
    got = reward(prompts=["p"] * 3, completions=["A", [{"role": "assistant", "content": "B"}],
                                                 [{"role": "assistant", "content": [
                                                     {"type": "text", "text": "C"}]}]],
                 completion_ids=[[1], [2], [3]], op=["level1/relu"] * 3, trainer_state=None,
                 log_metric=metrics.__setitem__, log_extra=extra.__setitem__)
    assert got == [1.0, None, 0.0]
    assert scorer.asked == [("level1/relu", "A"), ("level1/relu", "B"), ("level1/relu", "C")]
    assert metrics["warpsmith/passed"] == pytest.approx(1 / 3)
    assert extra["warpsmith_status"] == ["passed", "needs_gpu", "no_code"]
    assert reward.__name__ == "warpsmith"


def test_a_missing_task_column_names_the_columns_there():
    with pytest.raises(UsageError, match=r"no 'task' column among the dataset's \(level\)"):
        reward_function(Recorded({}))(prompts=["p"], completions=["A"], level=["x"],
                                      trainer_state=None)


def test_a_task_column_from_warpsmith_export_is_read_by_name():
    scorer = Recorded({"A": Score("level1/relu", "passed", 1.0)})
    reward = reward_function(scorer)
    assert reward(prompts=["p"], completions=["A"],
                  task=[{"name": "level1/relu", "source": "..."}]) == [1.0]
    assert scorer.asked == [("level1/relu", "A")]


def test_the_async_form_answers_the_same():
    scorer = Recorded({"A": Score("level1/relu", "passed", 1.0)})
    reward = async_reward_function(scorer)
    assert asyncio.iscoroutinefunction(reward)
    assert asyncio.run(reward(prompts=["p"], completions=["A"], task=["level1/relu"])) == [1.0]


def test_in_process_unknown_task_and_no_code_are_answered_without_verifying():
    reward = reward_function(LocalScorer(device="cpu"))
    got = reward(prompts=["p", "p"], completions=[FENCED, PROSE],
                 task=["level9/not_a_task", "level1/relu"])
    assert got == [None, 0.0]


def test_a_service_that_cannot_be_reached_is_none_for_every_sample():
    reward = reward_function(url="http://127.0.0.1:9", token="t")  # the discard port
    assert reward(prompts=["p"] * 2, completions=[FENCED, PROSE],
                  task=["level1/relu"] * 2) == [None, None]


@pytest.mark.slow
def test_grpo_trainer_trains_a_tiny_model_on_the_warpsmith_reward(tmp_path):
    """A few GRPO steps of a randomly initialised Llama whose vocabulary holds two whole
    answers as single tokens (the fenced relu kernel, and prose), every other token
    suppressed at generation: each completion is one of them, and TRL's own reward path
    runs the real verifier (CPU interpreter; repeats come from the verdict store)."""
    pytest.importorskip("trl", reason="TRL is the optional [rl] extra")
    from datasets import Dataset
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from trl import GRPOConfig, GRPOTrainer

    words = ["[PAD]", "[EOS]", "[UNK]", "Write", "a", "kernel", "for", "level1/relu"]
    base = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    base.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=base, pad_token="[PAD]",
                                        eos_token="[EOS]", unk_token="[UNK]")
    tokenizer.add_tokens([FENCED, PROSE])
    model = LlamaForCausalLM(LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
        pad_token_id=0, eos_token_id=1, bos_token_id=1))
    dataset = Dataset.from_list([{"prompt": "Write a kernel for level1/relu",
                                  "task": "level1/relu"}] * 8)
    scorer = LocalScorer(device="cpu", store_path=str(tmp_path / "verdicts.sqlite"))
    seen = []

    def watched(reward):
        def call(**kw):
            out = reward(**kw)
            seen.append((reward.__name__, list(kw["completions"]), out))
            return out
        call.__name__ = reward.__name__
        return call

    args = GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=4,
                      num_generations=4, max_completion_length=1, max_steps=2, use_cpu=True,
                      report_to=[], logging_steps=1, save_strategy="no", bf16=False, seed=0,
                      generation_kwargs={"suppress_tokens": list(range(len(words)))})
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args,
                          train_dataset=dataset,
                          reward_funcs=[watched(reward_function(scorer)),
                                        async_reward_function(scorer, name="warpsmith_async")])
    trainer.train()
    assert len(seen) == 2  # one call per step
    for _, completions, rewards in seen:
        assert set(completions) <= {FENCED, PROSE}
        assert rewards == [1.0 if c == FENCED else 0.0 for c in completions]
    logged = [h for h in trainer.state.log_history if "rewards/warpsmith/mean" in h]
    assert logged and all("rewards/warpsmith_async/mean" in h for h in logged)
    assert {c for _, cs, _ in seen for c in cs} == {FENCED, PROSE}  # both were sampled
