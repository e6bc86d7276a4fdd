"""A local transformers model: a tiny random Llama and a word-level tokenizer made on the spot,
so nothing is downloaded. Runs only where transformers is installed."""

import pytest

from warpsmith.llm import ProviderSettings, Request, make_provider

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

WORDS = ["write", "a", "relu", "kernel", "in", "triton", "class", "ModelNew", "import", "torch"]
TEMPLATE = ("{% for m in messages %}<{{ m['role'] }}> {{ m['content'] }} {% endfor %}"
            "{% if add_generation_prompt %}<assistant>{% endif %}")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny-llama")
    specials = ["<pad>", "<unk>", "<eos>", "<system>", "<user>", "<assistant>"]
    vocab = {w: i for i, w in enumerate(specials + WORDS)}
    backend = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="<pad>", unk_token="<unk>", eos_token="<eos>")
    tokenizer.chat_template = TEMPLATE
    tokenizer.save_pretrained(path)
    config = transformers.LlamaConfig(vocab_size=len(vocab), hidden_size=32,
                                      intermediate_size=64, num_hidden_layers=1,
                                      num_attention_heads=2, num_key_value_heads=2,
                                      pad_token_id=0, eos_token_id=2, bos_token_id=2)
    transformers.LlamaForCausalLM(config).save_pretrained(path)
    return path


def test_generates_with_usage_and_no_cost(tiny_model, tmp_path):
    settings = ProviderSettings(cache_path=tmp_path / "cache.sqlite")
    provider = make_provider(f"hf:{tiny_model}", settings)
    request = Request.chat("write a relu kernel in triton", system="import torch",
                           max_tokens=8, temperature=0.8, seed=1, n=2)
    response = provider.complete(request)
    assert response.ok, response.error
    assert response.provider == "hf" and len(response.choices) == 2
    assert response.usage.input_tokens > 0 and 0 < response.usage.output_tokens <= 16
    assert response.cost_usd == 0.0
    again = provider.complete(request)
    assert again.cached and again.text == response.text


def test_greedy_is_deterministic(tiny_model):
    provider = make_provider(f"hf:{tiny_model}", ProviderSettings(cache=False))
    request = Request.chat("write a kernel", max_tokens=6)
    assert provider.complete(request).text == provider.complete(request).text


def test_missing_model_folder(tmp_path):
    from warpsmith.errors import UsageError

    with pytest.raises(UsageError, match="no model there"):
        make_provider(f"hf:{tmp_path / 'nothing'}", ProviderSettings(cache=False))
