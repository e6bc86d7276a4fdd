"""The candidate's environment is an allow-list (config.worker_environment, issue 31 item 7):
what Python, torch, Triton, CUDA and a C++ build read; nothing else of ours or the user's."""

from warpsmith.config import worker_environment


def test_only_listed_variables_reach_the_candidate(monkeypatch):
    passed = {"PATH": "/usr/bin", "LD_LIBRARY_PATH": "/usr/local/cuda/lib64", "LANG": "C.UTF-8",
              "TRITON_CACHE_DIR": "/tmp/t", "CUDA_HOME": "/usr/local/cuda",
              "TORCH_CUDA_ARCH_LIST": "9.0", "OMP_NUM_THREADS": "1", "CC": "gcc"}
    held = {"LD_PRELOAD": "/tmp/evil.so", "HTTP_PROXY": "http://proxy:3128",
            "AWS_PROFILE": "prod", "WARPSMITH_DB": "/home/me/store.sqlite",
            "SSH_AUTH_SOCK": "/tmp/ssh-agent", "PYTHONSTARTUP": "/home/me/startup.py",
            "CUDA_API_KEY": "k", "TRITON_TOKEN": "t"}  # a listed prefix, a secret's name
    for name, value in (passed | held).items():
        monkeypatch.setenv(name, value)
    env = worker_environment("cpu")
    assert {k: env[k] for k in passed if k in env} == passed
    assert not set(held) & set(env)
    assert env["TRITON_INTERPRET"] == "1" and env["CUDA_VISIBLE_DEVICES"] == ""
    assert worker_environment("cuda", "3")["CUDA_VISIBLE_DEVICES"] == "3"


def test_an_executor_workers_tag_reaches_its_candidates(monkeypatch):
    """Killing a worker kills the candidates under it by this tag (executors/local.py)."""
    from warpsmith.executors.local import WORKER_TAG

    monkeypatch.setenv(WORKER_TAG, "ray-123")
    assert worker_environment("cpu")[WORKER_TAG] == "ray-123"
