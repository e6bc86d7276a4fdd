"""Which autotune configs the CPU interpreter ran (verify/child/autotune.py, E51): configs
that differ only in launch settings are one; a pre-hook makes a config of its own; a kernel
with a config never run is reported (the pipeline makes the verdict needs_gpu)."""

from types import SimpleNamespace

import triton

from warpsmith.verify.child import autotune


def _tuner(configs):
    return SimpleNamespace(configs=configs, base_fn=SimpleNamespace(__name__="k"))


def test_launch_settings_do_not_make_a_config_but_a_pre_hook_does(monkeypatch):
    hook = lambda nargs: None  # noqa: E731
    configs = [triton.Config({"B": 64}, num_warps=w) for w in (1, 2, 4, 8)] + \
        [triton.Config({"B": 64}, pre_hook=hook), triton.Config({"B": 128})]
    tuner = _tuner(configs)
    monkeypatch.setattr(autotune, "_SEEN", {id(tuner): (tuner, {autotune._key(configs[0])})})
    assert autotune.unrun() == ["k: 2 of 3 configs never ran"]
    autotune._next_unrun(tuner, autotune._SEEN[id(tuner)][1])
    assert tuner._warpsmith_turn == 3  # lang/triton.py adds one: the hooked config, index 4
    autotune._SEEN[id(tuner)][1].update({autotune._key(configs[4]), autotune._key(configs[5])})
    assert autotune.unrun() == []
