"""`--format torch-op`: a real library run on the CPU interpreter, exported and imported as a
standalone module; its guard runs the kernel only on the verified signature."""

import importlib.util
import sys

import pytest
import torch
from click.testing import CliRunner

from warpsmith.cli.export import export_command
from warpsmith.search import Settings, optimize
from warpsmith.store.runs import Attempt, RunStore

VERIFIED_SHAPE = (37, 129)  # level1/relu's "small" shape, the one the CPU verifies


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(db, run_id, module) for the exported level1/relu library kernel."""
    tmp = tmp_path_factory.mktemp("torch_op")
    db = tmp / "store.sqlite"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WARPSMITH_HOME", str(tmp / "home"))
        mp.setenv("TRITON_INTERPRET", "1")  # before the module's triton.jit runs
        mp.chdir(tmp)
        result = optimize("level1/relu", "library", "library", Settings(device="cpu"), db=db)
        assert result.status == "found"
        out = tmp / "my_kernels.py"
        cli = CliRunner().invoke(export_command, [result.run_id, "--format", "torch-op",
                                                  "--out", str(out), "--db", str(db)])
        assert cli.exit_code == 0, cli.output
        assert "import warpsmith" not in out.read_text()
        # registered in sys.modules under a name nothing else imports: torch.compile looks
        # the module up by name, and a second import would re-register the op elsewhere
        name = "warpsmith_test_exported_relu"
        spec = importlib.util.spec_from_file_location(name, out)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    yield db, result.run_id, module
    sys.modules.pop(name, None)


def test_guard_names_the_verified_signature(exported):
    _, _, k = exported
    assert k.OP_NAME == "warpsmith::relu" and k.DEVICE_TYPE == "cpu"
    assert k.VERIFIED == [(("tensor", VERIFIED_SHAPE, "float32"),)]


def test_verified_input_runs_the_kernel_and_matches_the_reference(exported):
    _, _, k = exported
    x = torch.randn(*VERIFIED_SHAPE)
    before = dict(k.CALLS)
    y = k.forward(x)
    assert k.LAST_PATH == "candidate" and k.CALLS["candidate"] == before["candidate"] + 1
    assert torch.equal(y, torch.relu(x)) and k.guard(x)
    assert torch.equal(k.Op()(x), torch.relu(x)) and k.LAST_PATH == "candidate"


@pytest.mark.parametrize("make", [
    lambda: torch.randn(38, 129),  # unverified shape
    lambda: torch.randn(*VERIFIED_SHAPE, dtype=torch.float64),  # unverified dtype
    lambda: torch.randn(129, 37).t(),  # verified shape, not contiguous
], ids=["shape", "dtype", "strides"])
def test_unverified_inputs_fall_back_to_the_reference(exported, make):
    _, _, k = exported
    x = make()
    before = dict(k.CALLS)
    y = k.forward(x)
    assert k.LAST_PATH == "reference" and k.CALLS["reference"] == before["reference"] + 1
    assert k.CALLS["candidate"] == before["candidate"] and not k.guard(x)
    assert y.dtype == x.dtype and torch.equal(y, torch.relu(x))


def test_autograd_takes_the_reference(exported):
    _, _, k = exported
    x = torch.randn(*VERIFIED_SHAPE, requires_grad=True)
    k.forward(x).sum().backward()
    assert k.LAST_PATH == "reference" and torch.equal(x.grad, (x > 0).to(x.dtype))


def test_torch_compile_traces_the_fake_impl(exported, monkeypatch):
    _, _, k = exported
    fakes = []
    real_fake = k._fake
    monkeypatch.setattr(k, "_fake", lambda inputs: fakes.append(inputs) or real_fake(inputs))
    meta = torch.ops.warpsmith.relu(torch.empty(*VERIFIED_SHAPE, device="meta"))
    assert meta.shape == VERIFIED_SHAPE and meta.device.type == "meta"
    f = torch.compile(lambda a: k.forward(a) * 2, backend="aot_eager", fullgraph=True)
    for shape, path in [(VERIFIED_SHAPE, "candidate"), ((5, 7), "reference")]:
        x = torch.randn(*shape)
        assert torch.equal(f(x), torch.relu(x) * 2)
        assert (k.LAST_PATH, shape) == (path, shape)
    assert len(fakes) >= 3  # the meta call and one trace per shape


def test_run_without_a_verified_attempt_exits_2(exported, tmp_path):
    db = tmp_path / "store.sqlite"
    store = RunStore(db)
    run_id = store.new_run("level1/relu", "library", "library", {})
    store.add(Attempt(run_id=run_id, chain=0, depth=0, sample=0,
                              status="compile_error", prompt=[], source="broken",
                              error="SyntaxError"))
    store.close()
    result = CliRunner().invoke(export_command, [run_id, "--format", "torch-op",
                                                 "--out", str(tmp_path / "k.py"),
                                                 "--db", str(db)])
    assert result.exit_code == 2 and "no verified attempt" in result.output
    assert not (tmp_path / "k.py").exists()
