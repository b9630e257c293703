"""The sandbox of an example: prepared once by the worker, entered by each forked child.

An example is code from a stranger's pull request. Before its first cell, its process gets:

- everywhere: an allow-listed environment (no tokens or keys of whoever builds), with a home,
  a temporary folder and the configuration and cache folders that Python, matplotlib and
  torch use, all fresh and empty and its own (:func:`own_folders`), removed after it; no
  descriptor of the worker's but its standard streams (``/dev/null``) and its record; limits
  on memory and on the size of a file it writes (:func:`apply_limits`);
- on Linux: Landlock (:mod:`.landlock`: what it may read and write), a network namespace of
  its own with only a loopback (:mod:`.namespaces`), no capabilities, and a cgroup or
  subreapers that find every process it starts (:mod:`.processes`).

Everywhere, :func:`snapshot` before and after the examples run detects what changed in the
folders a build reads or publishes. ``MKDOCS_EXAMPLES_PORTABLE=1`` turns every Linux-only call
off, to test the path macOS takes; ``MKDOCS_EXAMPLES_CGROUP=0`` the cgroup, to test the path of a
Linux system that does not delegate one.
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mkdocs_examples.execute.child import landlock, namespaces, processes
from mkdocs_examples.results import Options

# The folders an example's environment points at, each a fresh empty folder of its own
OWN_FOLDERS = {
    "HOME": "home",
    "TMPDIR": "tmp",
    "XDG_CONFIG_HOME": "config",
    "XDG_CACHE_HOME": "cache",
    "XDG_DATA_HOME": "data",
    "MPLCONFIGDIR": "matplotlib",
    "TORCH_HOME": "torch",
    "TORCHINDUCTOR_CACHE_DIR": "inductor",
    "TRITON_CACHE_DIR": "triton",
}


def linux_features() -> bool:
    """Whether the Linux-only protections are used here."""
    return sys.platform == "linux" and os.environ.get("MKDOCS_EXAMPLES_PORTABLE") != "1"


@dataclass
class Prepared:
    """What the worker worked out once, for every example it runs."""

    rules: landlock.Rules | None = None  # None: no Landlock
    network: str | None = "this system has no network namespaces"  # None: isolated; else why not
    cgroups: processes.Cgroups | None = None
    processes: str = "the example's process group (a process that leaves it with setsid is not found)"

    def facts(self) -> dict[str, str | int | None]:
        """What is enforced, for the worker's first answer (the build logs it once)."""
        return {
            "landlock": self.rules.abi if self.rules else 0,
            "network": self.network,
            "processes": self.processes,
        }


def prepare(project: list[Path]) -> Prepared:
    """In the worker, before it imports anything heavy (a user namespace needs a single thread)."""
    prepared = Prepared()
    if not linux_features():
        return prepared
    processes.become_subreaper()  # orphans of examples come to us, so we can name and end them
    prepared.network = namespaces.prepare()
    if os.environ.get("MKDOCS_EXAMPLES_CGROUP") == "0":  # the tests take the path of a system without one
        prepared.cgroups, how = None, "cgroups turned off by MKDOCS_EXAMPLES_CGROUP=0"
    else:
        prepared.cgroups, how = processes.Cgroups.create()
    prepared.processes = how if prepared.cgroups else f"subreapers ({how})"
    prepared.rules = landlock.prepare(project)
    return prepared


def enter(prepared: Prepared, box: Path, cgroup: Path | None, options: Options) -> None:
    """In the forked child, before the example runs: everything above, in the order it needs."""
    linux = linux_features()
    if linux:
        processes.die_with_parent()
        if cgroup is not None:
            processes.Cgroups.join(cgroup)  # needs write access to /sys/fs/cgroup: before Landlock
        if prepared.network is None:
            namespaces.isolate_network()  # needs the capability: before it is dropped
        processes.become_subreaper()  # what its processes orphan stays below it until it ends
    clean_environment()
    own_folders(box)
    apply_limits(options)
    if linux:
        namespaces.drop_capabilities()
        if prepared.rules is not None and not landlock.restrict(prepared.rules, writable=[box]):
            raise OSError("the kernel refused this example's Landlock rules: it does not run unconfined")


def close_descriptors(keep: list[int]) -> None:
    """Close every descriptor but 0, 1, 2 and ``keep``: the worker's pipes, Landlock's folders."""
    last = 3
    for fd in sorted(keep):
        os.closerange(last, fd)
        last = fd + 1
    os.closerange(last, max(last, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536))


def own_folders(box: Path) -> None:
    """Point HOME, TMPDIR and the configuration and cache folders at fresh empty folders in ``box``."""
    for variable, name in OWN_FOLDERS.items():
        folder = box / name
        folder.mkdir(parents=True, exist_ok=True)
        os.environ[variable] = str(folder)
    tempfile.tempdir = os.environ["TMPDIR"]


def apply_limits(options: Options) -> None:
    """Memory and file size limits of the options (0: none). Memory is not limited on CUDA, which
    reserves far more address space than it uses; RLIMIT_DATA counts what is written, not reserved."""
    limits = [(resource.RLIMIT_FSIZE, options.max_file_size)]
    if options.device != "cuda":
        limits.append((resource.RLIMIT_DATA, options.max_memory))
    for which, mib in limits:
        if mib > 0:
            with contextlib.suppress(ValueError, OSError):  # a system that does not have it
                resource.setrlimit(which, (mib << 20, mib << 20))


# --- detection, on every system -------------------------------------------------------

Snapshot = dict[str, tuple[int, int]]


def snapshot(folders: list[Path]) -> Snapshot:
    """Modification time and size of every file and folder beneath ``folders``."""
    seen: Snapshot = {}
    for folder in folders:
        for top, dirs, files in os.walk(folder):
            for name in [".", *dirs, *files]:
                path = os.path.join(top, name) if name != "." else top
                with contextlib.suppress(OSError):
                    info = os.lstat(path)
                    seen[path] = (info.st_mtime_ns, info.st_size)
    return seen


def changes(before: Snapshot, after: Snapshot) -> list[tuple[str, str, int]]:
    """(path, what happened, when in ns) for each file or folder created, changed or removed."""
    found = []
    for path, (mtime, size) in after.items():
        if path not in before:
            found.append((path, "created", mtime))
        elif before[path] != (mtime, size) and not os.path.isdir(path):
            found.append((path, "changed", mtime))
    found += [(path, "removed", 0) for path in before if path not in after]
    return sorted(found)


# The variables an example sees: what Python, locales, the numeric libraries and CUDA read. Tokens,
# keys and credentials of whoever runs the build (GITHUB_TOKEN, AWS_*, SSH_AUTH_SOCK...) are not here.
_ENVIRONMENT = {
    "PATH", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "SHELL",
    "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8", "LD_LIBRARY_PATH",
    "MPLBACKEND", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "CUDA_LAUNCH_BLOCKING",
    "MKDOCS_EXAMPLES_PORTABLE",
}  # fmt: skip
_ENVIRONMENT_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "CUBLAS_", "CUDNN_", "PYTORCH_", "TORCH_", "NCCL_", "GLOO_")


def clean_environment() -> None:
    """Keep only the allowed variables in this process's environment (the example's, after the fork)."""
    for name in list(os.environ):
        if name not in _ENVIRONMENT and not name.startswith(_ENVIRONMENT_PREFIXES):
            del os.environ[name]
