"""`warpsmith export --from-library SUITE`: PyTorch -> Triton pairs from the offline
generator, each verified here (the CPU interpreter) before it becomes a record."""

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from warpsmith.cli.export import export_command
from warpsmith.export.library import NOT_COVERED, VERIFIER_FAILED, library_records
from warpsmith.export.records import SFT
from warpsmith.prompts.extract import extract
from warpsmith.tasks import load_suite

BUILTIN = Path(__file__).parents[2] / "src/warpsmith/tasks/builtin/level1"
UNCOVERED = """import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.qr(x)[0]
def get_inputs():
    return [torch.randn(8, 8)]
def get_init_inputs():
    return []
"""


@pytest.fixture
def suite(tmp_path):
    folder = tmp_path / "suite"
    folder.mkdir()
    shutil.copy(BUILTIN / "relu.py", folder / "relu.py")
    (folder / "qr.py").write_text(UNCOVERED)
    return folder


def test_one_verified_record_per_covered_task_with_its_prompt_and_provenance(suite, tmp_path):
    out = tmp_path / "pairs.jsonl"
    result = CliRunner().invoke(export_command, [
        "--from-library", str(suite), "--format", "sft", "--out", str(out),
        "--device", "cpu", "--db", str(tmp_path / "store.sqlite")])
    assert result.exit_code == 0, result.output
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["schema"] == SFT and row["strategy"] == "library"
    assert row["verdict"]["status"] == "passed"
    assert row["provenance"]["generator"] == "library" and row["provenance"]["family"]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert "torch.relu(x)" in row["prompt"][1]["content"]  # the reference, as optimize asks
    # the answer is what a model is asked to give: extraction returns the verified file
    assert extract(row["completion"][0]["content"]).code.strip() == row["source"].strip()
    assert "no record for 1: not covered by the library" in result.output
    datasets = pytest.importorskip("datasets")  # the dev extra has it (with TRL)
    loaded = datasets.load_dataset("json", data_files=str(out), split="train")
    assert loaded.column_names[:2] == ["schema", "id"] and len(loaded) == 1
    assert loaded[0]["completion"][0]["role"] == "assistant"  # SFTTrainer's conversational form


def test_a_verifier_exception_is_counted_and_the_export_goes_on():
    tasks, _ = load_suite(str(BUILTIN))
    tasks = [t for t in tasks if t.name.split("/")[-1] in ("relu", "softmax")]

    def broken(task, source):
        raise RuntimeError("the store's disk is full")

    skipped = Counter()
    assert list(library_records(tasks, broken, skipped)) == []
    assert skipped == Counter({VERIFIER_FAILED: 2})
    assert NOT_COVERED not in skipped


@pytest.mark.parametrize("args", [
    ["--from-library", "builtin/level1", "--format", "rl"],
    ["run-id", "--from-library", "builtin/level1", "--format", "sft"],
])
def test_from_library_takes_sft_alone_and_no_run_ids(args):
    result = CliRunner().invoke(export_command, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
