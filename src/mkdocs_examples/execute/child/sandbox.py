"""The sandbox of an example: prepared once by the worker, entered by each forked child.

An example is code from a stranger's pull request. Before its first cell, its process gets:

- everywhere: an allow-listed environment (no tokens or keys of whoever builds), with a home,
  a temporary folder and the configuration and cache folders that Python, matplotlib and
  torch use, all fresh and empty and its own (:func:`own_folders`), removed after it; no
  descriptor of the worker's but its standard streams (``/dev/null``) and its record; limits
  on memory and on the size of a file it writes (:func:`apply_limits`);
- on Linux: new mount, PID, IPC, UTS and network namespaces (:mod:`.namespaces`): a root of
  read-only views with a minimal ``/dev``, its own ``/tmp``, ``/dev/shm`` and ``/proc``
  (:mod:`.mounts`), at most :data:`MAX_PROCESSES` processes and threads, a loopback and nothing
  else; Landlock (:mod:`.landlock`: what of that it may read and write); no capabilities; a
  cgroup or subreapers that find every process it starts, and a memory cgroup that counts its
  shared memory and its ``/tmp`` and ``/dev/shm`` too (:mod:`.processes`).

Each protection the system refuses is named in :attr:`Prepared.missing`; the build says so
once, and a strict build fails unless the site accepts it (option ``sandbox_optional``).

Everywhere, :func:`snapshot` before and after the examples run detects what changed in the
folders a build reads or publishes. ``MKDOCS_EXAMPLES_PORTABLE=1`` turns every Linux-only call
off, to test the path macOS takes; ``MKDOCS_EXAMPLES_CGROUP=0`` the cgroup, to test the path of a
Linux system that does not delegate one.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mkdocs_examples.execute.child import headers, landlock, masks, mounts, namespaces, processes
from mkdocs_examples.results import Options

# Processes and threads an example may have at once: DataLoader workers and a compiler's pool fit
MAX_PROCESSES = 256

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
    namespaces: str | None = "this system has no namespaces"  # None: mount, PID, IPC, UTS too; else why not
    limit: str | None = "this system cannot limit processes"  # None: MAX_PROCESSES; else why not
    views: tuple[Path, ...] = ()  # what the example's root shows read-only
    cgroups: processes.Cgroups | None = None
    limits: processes.Limit | None = None
    memory: str | None = "this system has no memory cgroup"  # None: max_memory bounds a cgroup too; else why not
    memory_limits: processes.Limit | None = None
    # Inductor's precompiled headers, shared by the examples of one worker (namespaces only). They are
    # built from torch's own headers, cost seconds each, and live outside TORCHINDUCTOR_CACHE_DIR, in
    # $TMPDIR, which is each example's own. Shared within one build only: what one example could leave
    # there reaches the others of the same build, all of which come from the same change
    headers: Path | None = None
    built: tuple[Path, ...] = ()  # headers the worker built itself (.headers), bound read-only into that folder
    processes: str = "the example's process group (a process that leaves it with setsid is not found)"

    @property
    def missing(self) -> dict[str, str]:
        """Each protection this system refuses: its name in ``sandbox_optional``, and why."""
        found = {"landlock": None if self.rules else "no Landlock (Linux 5.13+) here", "network": self.network,
                 "namespaces": self.namespaces, "process-limit": self.limit, "memory": self.memory}  # fmt: skip
        return {name: why for name, why in found.items() if why}

    def facts(self) -> dict[str, object]:
        """What is enforced, for the worker's first answer (the build logs it once)."""
        return {
            "landlock": self.rules.abi if self.rules else 0,
            "network": self.network,
            "processes": self.processes,
            "missing": self.missing,
            "most": MAX_PROCESSES,
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
    prepared.limits, prepared.limit = processes.Limit.pids(prepared.cgroups)
    limits, cgroups = prepared.limits, prepared.cgroups  # the folder the examples' cgroups v2 are made in:
    unified = limits.base if limits and limits.unified else cgroups.base if cgroups else None
    prepared.memory_limits, prepared.memory = processes.Limit.memory(unified)
    prepared.rules = landlock.prepare(project)
    if prepared.network is None:
        prepared.views = tuple(mounts.readable(landlock.readable_installations(), project))
        scratch = Path(tempfile.mkdtemp(prefix="mkx-trial-"))
        try:
            (scratch / "box").mkdir()
            prepared.namespaces = namespaces.trial(lambda: _isolated(prepared.views, scratch))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return prepared


def _isolated(views: tuple[Path, ...], scratch: Path) -> None:
    """What each example's processes do to isolate it, on an empty box: OSError if refused."""
    if namespaces.can_clone():  # as the worker forks each example's first process
        pid = namespaces.clone()
        if pid != 0:
            namespaces.end_as(pid)
        namespaces.loopback_up()
    else:
        namespaces.isolate_network(namespaces.EXAMPLE)
        namespaces.forked_init()
    mounts.build(scratch / "root", list(views), scratch / "box", gpu=False, in_memory=True)
    mounts.enter(scratch / "root", masks.write(scratch / "proc", 0))


def confine(
    prepared: Prepared, folder: Path, options: Options, *, cgroups: list[Path] | None = None,
    deadline: float = float("inf"), keep: list[int] | None = None, cloned: bool = False, in_memory: bool = False,
) -> None:
    """Enter the sandbox: the one way any runner of an example's code (the engine's worker, a notebook's
    kernel, a plain script) confines the process it forked for it, before the first line of that code.

    ``folder`` holds ``box``, the example's own folder (its home, TMPDIR and usually its working
    folder); ``cgroups``: the ones it joins; ``keep``: descriptors it keeps besides 0, 1 and 2;
    ``cloned``: this process was started by :func:`.namespaces.clone`, in the example's namespaces;
    ``in_memory``: with namespaces, its box is a tmpfs of its own, capped by ``max_files`` and
    ``max_folder_size``, where nothing outside needs what is in ``box`` (:func:`.mounts.build`). With
    namespaces this returns in a new process (:func:`enter`); the one that called it waits for that
    one and ends as it ends. What it cannot enter raises :class:`OSError`: nothing runs unconfined."""
    enter(prepared, folder, cgroups or [], options, deadline, cloned=cloned, in_memory=in_memory)
    close_descriptors(keep=keep or [])  # the runner's pipes and sockets, Landlock's folders


def enter(
    prepared: Prepared, folder: Path, cgroups: list[Path], options: Options, deadline: float, *,
    cloned: bool = False, in_memory: bool = False,
) -> None:  # fmt: skip
    """In the forked child, before the example runs: everything above, in the order it needs.

    With namespaces, the child waits for the namespace's first process, which waits for the
    example's: this returns in the third (:func:`isolate`); in the second where the child is that
    first process (``cloned``). ``folder``: the example's, with ``box``."""
    box = folder / "box"
    linux = linux_features()
    if linux:
        processes.die_with_parent()
        for cgroup in cgroups:  # its own, and its limit's where that is another hierarchy
            processes.Cgroups.join(cgroup)  # needs write access to /sys/fs/cgroup: before Landlock
        if prepared.namespaces is None:
            isolate(prepared, folder, options, deadline, cloned=cloned, in_memory=in_memory)  # with the capability
        elif prepared.network is None:
            namespaces.isolate_network()
        processes.become_subreaper()  # what its processes orphan stays below it until it ends
    clean_environment()
    own_folders(box)
    apply_limits(options)
    if linux:
        namespaces.drop_capabilities()
        # Its own /dev/shm, /proc and /dev, new mounts that the worker's rules cannot name. Not /tmp: a
        # rule there would grant what is mounted beneath it (a project in /tmp); its TMPDIR is in its box
        isolated = prepared.namespaces is None
        own, shown = ([box, Path("/dev/shm")], [Path("/proc"), Path("/dev")]) if isolated else ([box], [])
        if isolated and options.device == "cuda":  # CUDA's driver writes to /proc as it starts: without
            own, shown = [*own, Path("/proc")], [Path("/dev")]  # that, cuInit fails with 304, "OS call failed"
        if prepared.rules is not None and not landlock.restrict(prepared.rules, writable=own, readable=shown):
            raise OSError("the kernel refused this example's Landlock rules: it does not run unconfined")


def isolate(
    prepared: Prepared, folder: Path, options: Options, deadline: float, *, cloned: bool = False,
    in_memory: bool = False,
) -> None:  # fmt: skip
    """New namespaces (``cloned``: this process is already the first of them), the new root, then the
    example's process, below the namespace's first one."""
    if cloned:
        namespaces.loopback_up()
    else:
        namespaces.isolate_network(namespaces.EXAMPLE)
        namespaces.forked_init()  # from here on, the PID namespace's first process
    report = os.open(folder / "left.json", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    box, shared, built = folder / "box", {}, {}
    if prepared.headers is not None:  # where inductor looks for them, beneath its TMPDIR
        place = headers.folder_in(box / OWN_FOLDERS["TMPDIR"])
        shared[place] = prepared.headers
        built = {place / header.name: header for header in prepared.built}
    gpu = options.device == "cuda"
    covers = masks.write(folder / "proc", memory_limit(options))  # read here, from the host's /proc
    mounts.build(
        folder / "root", list(prepared.views), box, gpu=gpu, shared=shared, read_only=built, memory=options.max_memory,
        files=options.max_files, folder=options.max_folder_size, in_memory=in_memory,
    )  # fmt: skip
    mounts.enter(folder / "root", covers)
    example = os.fork()
    if example != 0:
        namespaces.init(example, report, processes.LEFTOVER, deadline)
    os.close(report)
    processes.die_with_parent()
    if cloned:  # a process group of its own, which its namespace's first process is not in (worker.py)
        os.setsid()


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
    """Memory and file size limits of the options (0: none), for this process and what it starts.
    RLIMIT_DATA counts what a process writes to its own memory, not what it shares: the memory cgroup
    (:func:`memory_limit`, set by the worker) counts that too, where the system has one."""
    limits = [(resource.RLIMIT_FSIZE, options.max_file_size << 20), (resource.RLIMIT_DATA, memory_limit(options))]
    for which, most in limits:
        if most > 0:
            with contextlib.suppress(ValueError, OSError):  # a system that does not have it
                resource.setrlimit(which, (most, most))


def memory_limit(options: Options) -> int:
    """Bytes of memory an example may use; 0: no limit. None on CUDA: its driver reserves far more address
    space than it uses (RLIMIT_DATA), and its host memory has not been measured against a cgroup's
    limit; the GPU job runs examples of the main branch only."""
    return options.max_memory << 20 if options.device != "cuda" else 0


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


# The variables an example sees: what Python, locales, the numeric libraries, CUDA and the compilers
# that inductor and Triton call read (CC, CXX: torch reads them when the worker imports it, so the
# example sees the compiler its torch uses). Tokens, keys and credentials of whoever runs the build
# (GITHUB_TOKEN, AWS_*, SSH_AUTH_SOCK...) are not here.
_ENVIRONMENT = {
    "PATH", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "SHELL", "CC", "CXX",
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
