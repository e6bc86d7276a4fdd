"""The public Python API: `warpsmith.verify` is the function, whatever is imported after."""

import importlib
import importlib.resources

import warpsmith


def test_verify_stays_the_function_after_submodule_imports():
    for name in ("warpsmith.verify.static", "warpsmith.verify.child.worker",
                 "warpsmith.verify.child.rank", "warpsmith.verify.ipc"):
        importlib.import_module(name)
    assert callable(warpsmith.verify)
    assert warpsmith.verify.__name__ == "verify"


def test_verify_through_the_public_api(tmp_path):
    source = importlib.resources.files("warpsmith.examples") / "relu_triton.py"
    verdict = warpsmith.verify("level1/relu", source, device="cpu")
    assert verdict.status == "passed", verdict.feedback
