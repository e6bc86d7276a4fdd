"""Dataset export from a real optimize run on the CPU interpreter: the loopback LLM answers a
broken kernel, then (thinking aloud in <think> tags) the fixed one."""

import json
from collections import Counter
from dataclasses import replace

import pytest
from click.testing import CliRunner

from warpsmith.bench.store import BenchStore, Item
from warpsmith.cli.export import export_command
from warpsmith.export import NO_PROMPT, export, load_runs, records
from warpsmith.export.records import (
    FAILED,
    PAIRS,
    PASS_REWARD,
    RL,
    SFT,
    RunData,
    verified,
)
from warpsmith.search import optimize
from warpsmith.store.runs import RunStore

from ..llm.server import LoopbackLLM
from ..search.test_optimize import BROKEN, CPU, FAST, FIXED, answer

THOUGHT = "The first kernel forgot the relu: negative inputs must become zero."


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(db, run_id) of a refine run: incorrect first, then fixed with a reasoning trace."""
    tmp = tmp_path_factory.mktemp("export")
    server = LoopbackLLM()
    fixed = answer(FIXED)
    fixed.text = f"<think>{THOUGHT}</think>\n{fixed.text}"
    server.script(answer(BROKEN), fixed)
    db = tmp / "store.sqlite"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WARPSMITH_HOME", str(tmp / "home"))
        mp.chdir(tmp)
        result = optimize("level1/relu", f"openai-compatible:{server.url}/v1#loopback-coder",
                          "refine", CPU, db=db, provider_settings=FAST)
    server.close()
    assert result.status == "found"
    return db, result.run_id


def rows(run, fmt):
    db, run_id = run
    return records(fmt, load_runs([run_id], db=db))


def test_sft_holds_exactly_the_verified_attempt_and_its_reasoning(run):
    db, run_id = run
    first, fixed = RunStore(db).attempts(run_id)
    [row] = rows(run, "sft")
    assert row["schema"] == "warpsmith.sft/2" and row["attempt_id"] == fixed.id
    assert row["source"] == fixed.source and row["source"].strip() == FIXED.strip()
    assert THOUGHT in row["reasoning"] and THOUGHT in row["response"]
    assert row["task"]["name"] == "level1/relu" and "class Model" in row["task"]["source"]
    assert row["prompt"] == fixed.prompt and row["prompt"][-1]["role"] == "user"
    assert row["completion"] == [{"role": "assistant", "content": fixed.response}]
    assert "incorrect" in row["prompt"][-1]["content"]  # it saw the first verdict
    assert row["verdict"]["status"] == "passed" and row["verdict"]["device"] == "cpu"
    assert set(row["verdict"]) >= {"speedup_vs_eager", "speedup_vs_compile",
                                   "roofline_fraction", "gpu"}


def test_rl_trajectory_has_both_turns_and_rewards_the_fix(run):
    [traj] = rows(run, "rl")
    assert traj["schema"] == "warpsmith.rl/3"
    broken, fixed = traj["turns"]
    assert [broken["status"], fixed["status"]] == ["incorrect", "passed"]
    assert fixed["parent_id"] == broken["attempt_id"] and broken["index"] == 0
    assert broken["reward"] == 0.0 < fixed["reward"] == PASS_REWARD  # untimed on the CPU
    assert "incorrect" in broken["feedback"] and broken["reasoning"] is None
    assert broken["source"].strip() == BROKEN.strip() and not broken["verified"]
    assert traj["outcome"] == {"final_status": "passed", "solved": True,
                               "best_attempt_id": fixed["attempt_id"],
                               "best_speedup_vs_eager": None, "return": PASS_REWARD,
                               "turns": 2}


def test_pairs_prefer_the_verified_kernel_to_the_incorrect_one(run):
    db, run_id = run
    first, fixed = RunStore(db).attempts(run_id)
    [pair] = rows(run, "pairs")
    assert pair["schema"] == "warpsmith.pairs/2" and pair["rule"] == "failed"
    assert pair["chosen_info"]["attempt_id"] == fixed.id
    assert pair["chosen_info"]["status"] == "passed"
    assert pair["rejected_info"]["attempt_id"] == first.id
    assert pair["rejected_info"]["status"] == "incorrect"
    assert pair["prompt"] == first.prompt  # the task's first prompt, shared by both sides


def test_nothing_unverified_is_ever_labelled_good(run):
    db, run_id = run
    by_id = {a.id: a for a in RunStore(db).attempts(run_id)}
    assert all(verified(by_id[r["attempt_id"]]) for r in rows(run, "sft"))
    for pair in rows(run, "pairs"):
        assert verified(by_id[pair["chosen_info"]["attempt_id"]])
        assert pair["rejected_info"]["status"] in FAILED or pair["rule"] == "slower"
    for traj in rows(run, "rl"):
        assert all((t["reward"] > 0) == (t["status"] == "passed") for t in traj["turns"])


def test_jsonl_file_and_a_bench_of_runs(run, tmp_path):
    db, run_id = run
    out = tmp_path / "sft.jsonl"
    assert export([run_id], "sft", out, db=db) == 1
    [line] = out.read_text().splitlines()
    assert json.loads(line)["schema"] == "warpsmith.sft/2"
    benches = BenchStore(db)
    bench_id = benches.new_bench("builtin", "llm:refine", {"tasks": ["level1/relu"],
                                                           "samples": 1})
    benches.add(bench_id, Item("level1/relu", 0, "passed", run_id=run_id))
    benches.close()
    assert [r["id"] for r in records("rl", load_runs(bench_id=bench_id, db=db))] == \
        [r["id"] for r in rows(run, "rl")]


def test_parquet_needs_pyarrow_or_round_trips(run, tmp_path):
    db, run_id = run
    out = tmp_path / "rl.parquet"
    try:
        import pyarrow.parquet as pq
    except ImportError:
        result = CliRunner().invoke(export_command, [run_id, "--format", "rl", "--out",
                                                     str(out), "--db", str(db)])
        assert result.exit_code == 2 and "pip install pyarrow" in result.output
        return
    for fmt, schema in (("sft", SFT), ("rl", RL), ("pairs", PAIRS)):
        out = tmp_path / f"{fmt}.parquet"
        assert export([run_id], fmt, out, db=db) == 1
        assert pq.read_table(out).to_pylist()[0]["schema"] == schema


def test_command_exit_codes(run, tmp_path):
    db, run_id = run
    cli = CliRunner()
    ok = cli.invoke(export_command, [run_id, "--format", "pairs", "--db", str(db)])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout.splitlines()[0])["schema"] == "warpsmith.pairs/2"
    for args in ([run_id, "--format", "dpo"], ["no-such-run", "--format", "sft"],
                 ["--format", "sft"], ["--bench", "no-such-bench", "--format", "rl"],
                 [run_id, "--bench", "b", "--format", "rl"]):
        bad = cli.invoke(export_command, [*args, "--db", str(db)])
        assert bad.exit_code == 2, (args, bad.output)


@pytest.fixture(scope="module")
def library_bench(tmp_path_factory):
    """(db, bench_id, run_id): a real model-free bench (the offline library) of relu on the
    CPU: its optimize run has a verified kernel and no prompt."""
    from warpsmith.bench import BenchSettings, bench

    from ..bench.conftest import make_suite

    tmp = tmp_path_factory.mktemp("library")
    db = tmp / "store.sqlite"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WARPSMITH_HOME", str(tmp / "home"))
        mp.chdir(tmp)
        result = bench(make_suite(tmp / "suite", "relu"), "library",
                       BenchSettings(device="cpu"), db=db)
    [item] = BenchStore(db).items(result.bench_id)
    assert item.status == "passed" and item.run_id
    return db, result.bench_id, item.run_id


def test_library_bench_exports_no_promptless_record_and_says_so(library_bench, tmp_path):
    db, bench_id, _ = library_bench
    for fmt in ("sft", "rl"):
        out = tmp_path / f"{fmt}.jsonl"
        result = CliRunner().invoke(export_command, ["--bench", bench_id, "--format", fmt,
                                                     "--out", str(out), "--db", str(db)])
        assert result.exit_code == 0, result.output
        assert out.read_text() == ""  # before the fix: one sft record with messages == []
        assert f"0 {fmt} records" in result.stderr
        assert f"skipped 1 {fmt} records with no prompt" in result.stderr


def test_runs_export_keeps_the_prompted_records_and_counts_the_rest(run, library_bench):
    db, run_id = run
    lib_db, _, lib_run = library_bench
    runs = load_runs([run_id], db=db) + load_runs([lib_run], db=lib_db)
    for fmt in ("sft", "rl"):
        skipped = Counter()
        got = records(fmt, runs, skipped)
        assert [r["run_id"] for r in got] == [run_id] and skipped == {NO_PROMPT: 1}, fmt
        assert all(r["prompt"] if fmt == "sft" else r["turns"][0]["messages"] for r in got)
    skipped = Counter()
    assert records("sft", load_runs([run_id], db=db), skipped) and not skipped


def test_pairs_skip_a_side_without_a_prompt(run):
    db, run_id = run
    [data] = load_runs([run_id], db=db)
    first, fixed = data.attempts
    unprompted = RunData(data.run, data.task, (replace(first, prompt=[]), fixed))
    skipped = Counter()
    assert records("pairs", [data]) and records("pairs", [unprompted], skipped) == []
    assert skipped == {NO_PROMPT: 1}


def test_each_format_loads_with_datasets_as_trl_takes_it(run, tmp_path):
    """datasets.load_dataset("json") on each export, then TRL's own dataset helpers: the
    conversational check and the chat template applied to a prompt-completion (SFT),
    preference (DPO) and prompt-only (GRPO) row, with a template written here (no download)."""
    datasets = pytest.importorskip("datasets", reason="datasets comes with the [rl] extra")
    data_utils = pytest.importorskip("trl.data_utils", reason="TRL is the optional [rl] extra")
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    db, run_id = run
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(
        {"[UNK]": 0}, unk_token="[UNK]")), unk_token="[UNK]")
    tokenizer.chat_template = ("{% for m in messages %}<{{ m.role }}>{{ m.content }}\n"
                               "{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}")
    want = {"sft": ("prompt", "completion"), "pairs": ("prompt", "chosen", "rejected"),
            "rl": ("prompt",)}
    for fmt, columns in want.items():
        export([run_id], fmt, tmp_path / f"{fmt}.jsonl", db=db)
        row = datasets.load_dataset("json", data_files=str(tmp_path / f"{fmt}.jsonl"),
                                    split="train")[0]
        assert data_utils.is_conversational(row), fmt
        text = data_utils.apply_chat_template({k: row[k] for k in columns}, tokenizer)
        assert text["prompt"].endswith("<assistant>"), fmt
        assert all("class ModelNew" in text[k] for k in columns[1:]), fmt
        assert row["task"]["name"] == "level1/relu"
