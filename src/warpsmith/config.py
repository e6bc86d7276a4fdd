"""The one place that reads environment variables, and the named verification profiles."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class VerifyProfile:
    name: str
    seeds: int  # fresh random seeds per shape (drawn anew each run, never shown)
    variants: tuple[str, ...]  # input distributions besides the task's own ("base")
    timeout_s: float  # the candidate's whole process, build and all
    cpu_max_bytes: int  # on the CPU interpreter, shapes moving more than this are skipped
    warmup_s: float  # GPU warm-up per implementation, by time
    blocks: int  # interleaved timing blocks
    calls_per_block: int
    timing_sets: int  # fresh input sets used only while timing, never seen by checked calls
    compile_modes: tuple[str, ...]  # torch.compile baselines
    # on the CPU, a task none of whose shapes fits is checked with its module-level sizes
    # halved until one call moves at most cpu_max_bytes and computes at most this
    cpu_max_flops: int = 500_000_000
    # without a GPU, a CUDA C++ source that includes torch's headers (load_inline) is
    # compile-checked by nvcc: about 45 s of torch's headers on a 2-core machine, so only
    # where the wait is asked for; `needs_gpu` comes in seconds otherwise
    nvcc_with_torch: bool = False
    # on a GPU, one more forward under compute-sanitizer's memcheck (verify/checks/memcheck.py):
    # out-of-bounds accesses judged, at 10-100× the kernels' time
    memcheck: bool = False
    # on the CPU, extra checked calls per declared shape, at least and at most, in a secret
    # number (verify/checks/reference.secret_order): a kernel honest on its first k calls cannot
    # know when the last come (E35). Tests of an honest generator's output set (0, 0): the
    # decoys catch cheating, which a generator's kernel does not do, at a third of the time
    decoys: tuple[int, int] = (2, 6)
    # where eager and torch.compile are timed: "process", a process of their own that the
    # trusted side's clock times through the same round trip as the candidate's blocks
    # (verify/timing/baseline_process.py); "here", the trusted process (no round trip: a bias of
    # 10-15 % against the candidate at a few calls a block, docs/benchmarks/verifier.md);
    # "kept", a process of their own kept between verifications of one task, so the second
    # candidate pays no start-up and no torch.compile build (verify/timing/baseline_process.KEPT).
    # Measured on the H100 on two tasks: 5.3-6.9 s a verification against 10-18 s, the
    # speedups' spread 2-4 % against 8-11 % on layer_norm (docs/benchmarks/verifier.md); a
    # bug in its compile baseline was fixed after that, so it stays opt-in until measured again.
    baselines: str = "process"


PROFILES = {
    "quick": VerifyProfile("quick", seeds=2, variants=("scaled", "shifted"), timeout_s=300,
                           cpu_max_bytes=8 << 20, warmup_s=0.1, blocks=5, calls_per_block=5,
                           timing_sets=3,
                           compile_modes=("default",)),
    "thorough": VerifyProfile("thorough", seeds=4, variants=("scaled", "shifted", "heavy"),
                              timeout_s=900, cpu_max_bytes=64 << 20, warmup_s=0.3, blocks=10,
                              calls_per_block=10, timing_sets=5,
                              compile_modes=("default", "max-autotune-no-cudagraphs"),
                              nvcc_with_torch=True, memcheck=True),
}


def profile(name: str) -> VerifyProfile:
    from .errors import UsageError

    if name not in PROFILES:
        raise UsageError(f"unknown profile {name!r} (valid: {', '.join(PROFILES)})")
    return PROFILES[name]


def home() -> Path:
    """Where warpsmith keeps its store: $WARPSMITH_HOME, else ~/.cache/warpsmith."""
    if os.environ.get("WARPSMITH_HOME"):
        return _creatable(Path(os.environ["WARPSMITH_HOME"]), "$WARPSMITH_HOME")
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return _creatable(Path(cache) / "warpsmith", "$XDG_CACHE_HOME")


def _creatable(path: Path, source: str) -> Path:
    """A home under a regular file can never be made: say so here, once, rather than in a
    traceback from whichever mkdir under it runs first."""
    for folder in (path, *path.parents):
        if folder.exists():
            if not folder.is_dir():
                from .errors import UsageError
                raise UsageError(f"warpsmith's home {path} cannot be made: {folder} is a file;"
                                 f" set {source} to a folder")
            return path
    return path


def artifacts_dir(store: Path) -> Path:
    """Where runs and benches keep their files (generated candidates): beside the store they
    are recorded in, so a store chosen with --db or $WARPSMITH_DB keeps its files with it and
    never needs the home folder."""
    store = Path(store).absolute()
    return store.parent / f"{store.stem}-files"


def writable_folder(path: Path, setting: str) -> Path:
    """`path`, a folder the tools will write to, checked before any work: it, or the nearest
    folder above it that exists, must be a writable folder. Otherwise a one-line error names
    `setting`, the option or variable that moves it (e.g. "--db or $WARPSMITH_DB")."""
    from .errors import UsageError

    path = Path(path).absolute()
    for folder in (path, *path.parents):
        if not folder.exists():
            continue
        if not folder.is_dir():
            where = "" if folder == path else f" ({folder} is a file)"
            raise UsageError(f"cannot write to {path}: not a folder{where}; choose another "
                             f"place with {setting}")
        # os.access sees a read-only mount even as root (EROFS); permissions alone it would not
        if not os.access(folder, os.W_OK | os.X_OK):
            raise UsageError(f"cannot write to {path}: {folder} is not writable; choose "
                             f"another place with {setting}")
        return path
    return path


def db_path() -> Path:
    """The SQLite store: $WARPSMITH_DB, else warpsmith.sqlite under home()."""
    if os.environ.get("WARPSMITH_DB"):
        return Path(os.environ["WARPSMITH_DB"])
    return home() / "warpsmith.sqlite"


def chosen_store(db: Path | str | None = None) -> tuple[Path, str]:
    """The store a command records in (--db, else $WARPSMITH_DB, else under home()) and the
    setting that moves it, for error messages."""
    if db:
        return Path(db), "--db"
    if os.environ.get("WARPSMITH_DB"):
        return Path(os.environ["WARPSMITH_DB"]), "$WARPSMITH_DB (or --db)"
    source = "$WARPSMITH_HOME" if os.environ.get("WARPSMITH_HOME") else "$XDG_CACHE_HOME"
    return home() / "warpsmith.sqlite", f"{source}, $WARPSMITH_DB or --db"


def writable_store(db: Path | str | None = None) -> Path:
    """The store a writing command (optimize, bench, verify) will use, with its folder and
    its files' folder (artifacts_dir) checked before any work starts."""
    store, setting = chosen_store(db)
    writable_folder(store.parent, setting)
    writable_folder(artifacts_dir(store), setting)
    if store.is_dir():
        from .errors import UsageError
        raise UsageError(f"the store {store} is a folder; set {setting} to a file path")
    return store


def private_folders() -> list[Path]:
    """The folders that may hold the store, for the sandbox to hide: home() and the default
    store's folder. A home that cannot be made (under a file) holds nothing to hide."""
    from .errors import UsageError

    try:
        return [home(), db_path().parent]
    except UsageError:
        return [db_path().parent] if os.environ.get("WARPSMITH_DB") else []


def worker_environment(device: str, visible: str | None = None) -> dict[str, str]:
    """The candidate process's environment: the allow-listed part of ours (PASSED_NAMES and
    PASSED_PREFIXES, no secrets; PYTHONPATH's entries made absolute), plus
    the Triton interpreter on the CPU; `visible` pins it to one GPU (a CUDA_VISIBLE_DEVICES
    entry an executor lent)."""
    env = {k: v for k, v in os.environ.items() if _passed(k) and not _secret(k)}
    if env.get("PYTHONPATH"):  # the worker runs in an empty cwd: PYTHONPATH=src finds nothing
        env["PYTHONPATH"] = os.pathsep.join(str(Path(p).resolve()) if p else p
                                            for p in env["PYTHONPATH"].split(os.pathsep))
    if visible:
        env["CUDA_VISIBLE_DEVICES"] = visible
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
        env["CUDA_VISIBLE_DEVICES"] = ""
    env["PYTHONUNBUFFERED"] = "1"
    return env


# The candidate's environment is an allow-list (issue 31 item 7): what Python, torch, Triton,
# the CUDA stack and a C++ build (load_inline) read, nothing else; a variable of ours or of
# the user's shell (a proxy, a cloud profile, LD_PRELOAD) is not passed. Caches and home are
# set inside the sandbox (verify/isolation/jail.py).
PASSED_NAMES = frozenset({
    "PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
    "HOME", "USER", "LOGNAME", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE", "TZ",
    "PYTHONPATH", "PYTHONHOME", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONNOUSERSITE", "VIRTUAL_ENV", "CONDA_PREFIX",
    "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "MAX_JOBS",
    # kineto's teardown of CUPTI after a profiling session (the worker profiles its checked
    # calls; left subscribed, CUPTI's callbacks may slow every later CUDA call: the suspect
    # for the worker's slow launches on the H100, docs/benchmarks/kernelbench.md)
    "TEARDOWN_CUPTI",
    # an executor worker's tag (executors/local.WORKER_TAG): every process under it carries it,
    # so a killed worker's candidates are found in /proc and killed with it
    "WARPSMITH_EXECUTOR_WORKER"})
PASSED_PREFIXES = ("CUDA_", "NVIDIA_", "NV_", "TRITON_", "TORCH_", "PYTORCH_", "TORCHINDUCTOR_",
                   "OMP_", "MKL_", "KMP_", "OPENBLAS_", "LC_", "XDG_")


def _passed(name: str) -> bool:
    return name in PASSED_NAMES or name.startswith(PASSED_PREFIXES)


def _secret(name: str) -> bool:
    """API keys and tokens never reach candidate code: its log tail is shown to models."""
    upper = name.upper()
    return any(word in upper for word in ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"))


def sandbox_mode() -> str:
    """$WARPSMITH_SANDBOX: auto (bubblewrap where it works, else none, said in the verdict)
    or none (switched off: the verdict says so)."""
    value = os.environ.get("WARPSMITH_SANDBOX", "auto").strip().lower() or "auto"
    if value not in ("auto", "none"):
        from .errors import UsageError
        raise UsageError(f"WARPSMITH_SANDBOX={value!r}: use auto or none")
    return value


def bwrap_path() -> str | None:
    """$WARPSMITH_BWRAP: a bubblewrap binary other than the one on PATH (an unpacked .deb)."""
    return os.environ.get("WARPSMITH_BWRAP") or None


def python_path_entries() -> list[str]:
    """$PYTHONPATH's entries, absolute: the sandbox binds them for the candidate's process."""
    value = os.environ.get("PYTHONPATH", "")
    return [str(Path(p).resolve()) for p in value.split(os.pathsep) if p]


def cuda_visible_devices() -> str | None:
    """The GPUs this process was given ($CUDA_VISIBLE_DEVICES, None when unset: every GPU);
    the local executor hands one entry to each worker."""
    return os.environ.get("CUDA_VISIBLE_DEVICES")


GPU_SHARED = "WARPSMITH_GPU_SHARED"  # set to 1 by the `local:N` executor for its workers


def gpu_shared() -> bool:
    """Whether this process's verifications share their GPU with others while they prepare and
    check ($WARPSMITH_GPU_SHARED=1; each is still timed alone: verify/isolation/gpulock.py).
    Otherwise each has it alone from the start."""
    return os.environ.get(GPU_SHARED, "").strip() == "1"


def prestart(device: str) -> str:
    """When a spare candidate process is started ahead of its job (verify/isolation/prestart.py):
    $WARPSMITH_PRESTART = off, after or ahead. Default: ahead on a GPU (half the wall time of
    a verification, with speedups unchanged: docs/benchmarks/verifier.md); off on the CPU,
    where a spare's start-up competes for the few cores with the candidate that is running."""
    default = "ahead" if device == "cuda" else "off"
    return os.environ.get("WARPSMITH_PRESTART", default).strip().lower() or default


# LLM providers. Keys come from the variables each vendor's own tools read, so a user who has
# used the SDK before needs to set nothing new.

def openai_api_key() -> str | None:
    return os.environ.get("OPENAI_API_KEY") or None


def openai_base_url() -> str | None:
    """None lets the SDK use api.openai.com; set OPENAI_BASE_URL for a proxy or a test server."""
    return os.environ.get("OPENAI_BASE_URL") or None


def anthropic_api_key() -> str | None:
    return os.environ.get("ANTHROPIC_API_KEY") or None


def anthropic_base_url() -> str | None:
    return os.environ.get("ANTHROPIC_BASE_URL") or None


def openai_compat_api_key() -> str:
    """Local servers (vLLM, Ollama, llama.cpp) ignore the key but the SDK insists on one."""
    return (os.environ.get("WARPSMITH_OPENAI_COMPAT_KEY") or os.environ.get("OPENAI_API_KEY")
            or "not-needed")


def llm_prices_path() -> Path | None:
    """A TOML or JSON file of prices overriding the built-in table: $WARPSMITH_PRICES."""
    value = os.environ.get("WARPSMITH_PRICES")
    return Path(value) if value else None


def llm_cache_path() -> Path:
    """The LLM response cache: $WARPSMITH_LLM_CACHE, else llm-cache.sqlite under home()."""
    if os.environ.get("WARPSMITH_LLM_CACHE"):
        return Path(os.environ["WARPSMITH_LLM_CACHE"])
    return home() / "llm-cache.sqlite"


def reward_token() -> str | None:
    """The reward service's bearer token: $WARPSMITH_REWARD_TOKEN (or `--token`)."""
    return os.environ.get("WARPSMITH_REWARD_TOKEN") or None
