"""The OS sandbox around every process that runs candidate code (bubblewrap).

A Python harness cannot defend itself from code in its own process, so what decides a verdict
lives outside the candidate's reach, and this module makes that reach small. Each candidate
process (the verify worker, a spare, the tuner's ranking worker: everything sandbox.Started
runs) gets, through bubblewrap:

- new PID, IPC, network, UTS and cgroup namespaces: it sees no other process (the verifier's
  /proc/<pid>/fd, its stdout and its store are not there to write to), cannot signal or stop
  one, has no network, and every process it starts dies with the namespace's init;
- a read-only view of the machine with the homes, /tmp, /run, the trusted process's working
  folder and warpsmith's store hidden under empty tmpfs, and only its own scratch folder
  writable (the job's code is bound read-only); /proc is its own; /dev holds only the basic
  nodes and the GPU's;
- when the verifier runs as root, a fresh unprivileged uid per job (setpriv), no capabilities
  and no_new_privs, so files the verifier owns stay closed even where they are visible;
- a seccomp filter (libseccomp through pyseccomp) refusing ptrace, other processes' memory,
  new namespaces, mounts, io_uring, BPF, kernel modules and keyrings;
- resource limits (prlimit): processes, file size, no core dumps;
- --die-with-parent: when the trusted process dies (a timeout's kill, an OOM kill, Ctrl-C),
  bubblewrap and with it the whole PID namespace go too.

Where bubblewrap is missing or cannot make namespaces here, `current()` says so (kind "none",
with the reason) and the verdict carries `sandbox: none`; `require()` turns that into a usage
error for callers that must not run without one (the reward service by default).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import glob
import os
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ... import config

UID_BASE, UID_SPAN = 1_200_000, 800_000  # far above any real account's uid
MAX_PROCESSES = 4096  # per job uid: a fork bomb stops here (threads count too)
MAX_FILE_BYTES = 8 << 30  # one file the candidate writes
TMP_MAX_BYTES = 16 << 30  # its private /tmp (caches of Triton and inductor live there), at
TMP_SHARE = 8  # most this and an eighth of the machine's memory: tmpfs pages are memory, and
# 16 GiB of a 24 GiB machine's was one job's to take
SCRATCH_BYTES = 1 << 30  # its working folder: bound from the host's /tmp, a disk flood
OOM_SCORE_ADJ = 1000  # the kernel's OOM killer takes the job before the verifier
SYSTEM = ("/usr", "/etc", "/opt", "/lib", "/lib64", "/bin", "/sbin", "/var/lib", "/sys",
          "/proc", "/dev")
HIDDEN = ("/home", "/root", "/tmp", "/var/tmp", "/run", "/mnt", "/media", "/srv")
DENIED = ("ptrace", "process_vm_readv", "process_vm_writev", "kexec_load", "kexec_file_load",
          "init_module", "finit_module", "delete_module", "mount", "umount2", "pivot_root",
          "chroot", "swapon", "swapoff", "reboot", "bpf", "userfaultfd", "keyctl", "add_key",
          "request_key", "unshare", "setns", "acct", "quotactl", "syslog", "iopl", "ioperm",
          "open_by_handle_at", "name_to_handle_at", "io_uring_setup", "io_uring_enter",
          "io_uring_register", "fanotify_init", "fsopen", "fsmount", "fspick", "open_tree",
          "move_mount", "mount_setattr", "pidfd_getfd", "kcmp", "personality",
          "lookup_dcookie", "perf_event_open",
          "tee")  # copies a pipe without consuming it: the seeds on stdin stay unread
CLONE_NAMESPACES = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET


@dataclass(frozen=True)
class Jail:
    kind: str  # "bwrap" or "none"
    detail: str  # bwrap's path and what it has, or why there is no sandbox
    bwrap: str = ""
    seccomp: bytes = b""  # the compiled filter, or empty where pyseccomp is missing
    prlimit: str = ""

    @property
    def ok(self) -> bool:
        return self.kind == "bwrap"

    def describe(self) -> str:
        return self.kind if self.ok else f"none ({self.detail})"


_hidden_extra: set[str] = set()


def hide(path: Path | str) -> None:
    """A folder the candidate must not see, beyond the defaults (a store given by --db)."""
    _hidden_extra.add(str(Path(path).resolve()))


def hidden_extra() -> list[str]:
    """What hide() was given in this process: an executor's job carries it to its worker."""
    return sorted(_hidden_extra)


@functools.cache
def current() -> Jail:
    """The sandbox this machine can give, probed once per process."""
    mode = config.sandbox_mode()
    if mode == "none":
        return Jail("none", "switched off by WARPSMITH_SANDBOX=none")
    bwrap = config.bwrap_path() or shutil.which("bwrap")
    if not bwrap:
        return Jail("none", "bubblewrap is not installed (apt-get install bubblewrap)")
    why = _probe(bwrap)
    if why:
        return Jail("none", f"bubblewrap cannot make namespaces here: {why}")
    seccomp, note = _seccomp_program()
    return Jail("bwrap", f"{bwrap}{note}", bwrap=bwrap, seccomp=seccomp,
                prlimit=shutil.which("prlimit") or "")


def require() -> None:
    from ...errors import UsageError

    jail = current()
    if not jail.ok:
        raise UsageError(f"no OS sandbox for candidate code: {jail.detail}; install "
                         "bubblewrap, or run without --require-sandbox to accept that")


def _probe(bwrap: str) -> str:
    argv = [bwrap, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    return "" if done.returncode == 0 else done.stderr.decode(errors="replace").strip()[:200]


def _seccomp_program() -> tuple[bytes, str]:
    try:
        import pyseccomp as sc
    except (ImportError, OSError) as e:  # the binding, or libseccomp itself, is missing
        return b"", f", no seccomp filter ({e})"
    f = sc.SyscallFilter(sc.ALLOW)
    for name in DENIED:
        with contextlib.suppress(OSError, RuntimeError, ValueError):  # not a syscall here
            f.add_rule(sc.ERRNO(errno.EPERM), name)
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")  # glibc falls back to clone, checked below
    f.add_rule(sc.ERRNO(errno.EPERM), "clone",
               sc.Arg(0, sc.MASKED_EQ, CLONE_NAMESPACES, CLONE_NAMESPACES))
    for bit in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                0x40000000):  # one rule per namespace flag: any one of them is refused
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, bit, bit))
    read, write = os.pipe()
    try:
        with os.fdopen(write, "wb") as out:
            f.export_bpf(out)
        with os.fdopen(read, "rb") as src:
            return src.read(), ", seccomp"
    except OSError as e:
        return b"", f", no seccomp filter ({e})"


def new_uid() -> int | None:
    """A uid of its own for one job when we can switch to it (we are root), else None."""
    return UID_BASE + secrets.randbelow(UID_SPAN) if os.geteuid() == 0 else None


@dataclass(frozen=True)
class Wrapped:
    argv: list[str]
    pass_fds: tuple[int, ...]
    close_after: tuple[int, ...]  # our ends of pipes that feed bwrap, closed once started


def wrap(jail: Jail, argv: list[str], writable: list[Path], uid: int | None,
         keep_fds: tuple[int, ...], readonly: list[Path] = ()) -> Wrapped:
    """The command line that runs argv inside the sandbox, in writable[0]: the scratch cwd
    is a tmpfs of its own at its path (nothing in it is read back; bound from the host's
    /tmp, many files of 8 GiB each would fill its disk), the other `writable` folders are
    bound at their own paths, and the `readonly` ones (the job's code) read-only there."""
    if not jail.ok:
        return Wrapped(argv, keep_fds, ())
    args = [jail.bwrap, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    hidden = _hidden()
    for path in hidden:
        args += ["--perms", "0755", "--tmpfs", path] if path != "/tmp" else \
            ["--perms", "1777", "--size", str(tmp_bytes()), "--tmpfs", path]
    made: set[str] = set()  # folders made, and folders bound (whose insides come along)
    bound: list[str] = []
    for path in _python_paths():  # a script's own folder in /tmp is on sys.path: a hidden
        if _under_hidden(path, hidden) and path not in hidden:  # root is never re-exposed
            args += _parents(path, hidden, made, bound) + ["--ro-bind-try", path, path]
            bound.append(path)
    args += ["--perms", "1777", "--size", str(SCRATCH_BYTES), "--tmpfs", str(writable[0])]
    for flag, paths in (("--bind", writable[1:]), ("--ro-bind", readonly)):
        for path in map(str, paths):  # the folders above it made traversable, as above
            if _under_hidden(path, hidden) and path not in hidden:
                args += _parents(path, hidden, made, bound)
            args += [flag, path, path]
            bound.append(path)
    for node in sorted(glob.glob("/dev/nvidia*")):  # the GPU's device nodes, where there are
        args += ["--dev-bind", node, node]
    args += ["--chdir", str(writable[0])]
    args += _inside_env()
    fds: list[int] = []
    if uid is not None:  # getpass.getuser() and inductor's cache ask who the job's uid is
        for path, tail in (("/etc/passwd", "::/tmp:/bin/false"), ("/etc/group", ":")):
            args += ["--perms", "0644", "--ro-bind-data",
                     _feed(fds, _accounts(path, uid, tail)), path]
    if jail.seccomp:
        args += ["--seccomp", _feed(fds, jail.seccomp)]
    args.append("--")
    return Wrapped(_oom_first() + _limits(jail) + args + _drop(uid) + argv, (*keep_fds, *fds),
                   tuple(fds))


def tmp_bytes() -> int:
    """The job's private /tmp: an eighth of this machine's memory, 1 to 16 GiB."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):  # not reported: the smallest size
        memory = 0
    return max(1 << 30, min(TMP_MAX_BYTES, memory // TMP_SHARE >> 20 << 20))  # whole MiB


def _feed(fds: list[int], data: bytes) -> str:
    """A pipe bubblewrap reads `data` from (a few KB: it fits the pipe's buffer)."""
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    fds.append(read)
    return str(read)


def _accounts(path: str, uid: int, tail: str) -> bytes:
    try:
        with open(path, "rb") as f:
            known = f.read()
    except OSError:
        known = b""
    if known and not known.endswith(b"\n"):
        known += b"\n"
    return known + f"warpsmith-job:x:{uid}:{uid}{tail}\n".encode()


def _hidden() -> list[str]:
    """Folders that may hold the store, the user's files or other jobs, shadowed by tmpfs;
    anything under them the worker needs is bound back afterwards."""
    paths = set(HIDDEN) | _hidden_extra | {os.getcwd(), *map(str, config.private_folders())}
    paths = {p for p in paths if os.path.isdir(p) and not _system(p)}
    return sorted(paths, key=lambda p: (p.count("/"), p))  # parents before children


def _parents(path: str, hidden: list[str], made: set[str], bound: list[str]) -> list[str]:
    """Folders between a hidden root and a path bound back, made traversable (0755): those
    bubblewrap makes for a mount point are closed to the job's uid (a venv in /tmp/clone/)."""
    root = max((h for h in hidden if path.startswith(h.rstrip("/") + "/")), key=len)
    args, parts = [], path[len(root.rstrip("/")) + 1:].split("/")[:-1]
    for i in range(len(parts)):
        folder = f"{root.rstrip('/')}/{'/'.join(parts[:i + 1])}"
        inside = any(folder == b or folder.startswith(b + "/") for b in bound)
        if folder not in made and not inside:
            made.add(folder)
            args += ["--perms", "0755", "--dir", folder]
    return args


def _system(path: str) -> bool:
    """A folder the machine itself runs from (a cwd of / or /usr): never shadowed."""
    return any(s == path or s.startswith(path.rstrip("/") + "/") for s in SYSTEM)


def _under_hidden(path: str, hidden: list[str]) -> bool:
    return any(path == h or path.startswith(h.rstrip("/") + "/") for h in hidden)


def _python_paths() -> list[str]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    roots |= {os.path.realpath(sys.executable).rsplit("/bin/", 1)[0]}
    roots |= {p for p in sys.path if p and os.path.exists(p)}
    roots |= {p for p in config.python_path_entries() if os.path.exists(p)}
    roots.add(str(Path(__file__).resolve().parents[3]))  # warpsmith itself (editable finders)
    return sorted(roots, key=lambda p: (p.count("/"), p))


def _inside_env() -> list[str]:
    """Caches and home inside the private /tmp: the real ones are hidden, and a cache shared
    between jobs would let one candidate plant compiled code for the next."""
    env = {"HOME": "/tmp", "TMPDIR": "/tmp", "USER": "warpsmith-job",
           "LOGNAME": "warpsmith-job", "XDG_CACHE_HOME": "/tmp/.cache",
           "TRITON_CACHE_DIR": "/tmp/.triton", "TORCHINDUCTOR_CACHE_DIR": "/tmp/.inductor",
           "CUDA_CACHE_PATH": "/tmp/.nv"}
    return [a for k, v in env.items() for a in ("--setenv", k, v)]


def _limits(jail: Jail) -> list[str]:
    if not jail.prlimit:
        return []
    return [jail.prlimit, f"--nproc={MAX_PROCESSES}", f"--fsize={MAX_FILE_BYTES}",
            "--core=0", "--"]


def _oom_first() -> list[str]:
    """A candidate that takes all the memory is the one the OOM killer ends, not the
    verifier (or the reward service) beside it; raising the score needs no privilege, and
    the candidate cannot lower it again without CAP_SYS_RESOURCE."""
    choom = shutil.which("choom")
    return [choom, "-n", str(OOM_SCORE_ADJ), "--"] if choom else []


def _drop(uid: int | None) -> list[str]:
    setpriv = shutil.which("setpriv")
    if uid is None or not setpriv:
        return []
    return [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]


def give(path: Path, uid: int | None) -> None:
    """Make a folder (and what is in it) the job uid's, so the worker may write there."""
    if uid is None:
        return
    for root, dirs, files in os.walk(path):
        for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
            os.chown(name, uid, uid, follow_symlinks=False)
