"""The few-shot library: verified files, never the answer to the task being prompted."""

from warpsmith.prompts import example_library, pick_examples
from warpsmith.tasks import BUILTIN, load_task, resolve_task

from .conftest import KERNELS


def test_shipped_examples():
    library = {e.name: e for e in example_library()}
    assert set(library) >= {"relu_triton", "softmax_triton"}
    assert library["relu_triton"].task == "level1/relu"
    assert library["relu_triton"].language == "triton"
    assert "torch.softmax" in library["softmax_triton"].reference()


def test_test_corpus_headers_are_read_and_stripped():
    library = {e.name: e for e in example_library([KERNELS / "good", KERNELS / "gpu"])}
    example = library["relu_cuda_load_inline"]
    assert (example.task, example.language) == ("level1/relu", "cuda")
    assert "# expect:" not in example.source and "# task:" not in example.source



def test_only_files_expected_to_pass():
    names = {e.name for e in example_library([KERNELS / "good", KERNELS / "bad",
                                              KERNELS / "gpu"])}
    assert "relu_triton" in names and "softmax_rows" in names
    assert not names & {"incorrect_wrong_math", "runtime_error", "E08_empty_grid",
                        "E23_side_stream_unjoined"}


def test_never_the_task_itself():
    library = example_library([KERNELS / "good"])
    softmax = resolve_task("level1/softmax")
    chosen = pick_examples(softmax, "triton", 50, library)
    assert chosen and all(e.task != "level1/softmax" for e in chosen)
    # the same built-in file loaded by path, under its file name
    by_path = load_task(BUILTIN / "level1" / "softmax.py")
    assert all(e.task != "level1/softmax" for e in pick_examples(by_path, "triton", 50, library))


def test_shortest_first_and_by_language():
    library = example_library([KERNELS / "good", KERNELS / "gpu"])
    task = resolve_task("level1/layer_norm")
    chosen = pick_examples(task, "triton", 3, library)
    assert [len(e.source) for e in chosen] == sorted(len(e.source) for e in chosen)
    assert all(e.language == "cuda" for e in pick_examples(task, "cuda", 3, library))
