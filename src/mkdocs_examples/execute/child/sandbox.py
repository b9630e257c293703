"""Keep examples from changing the project: prevented where the OS allows, detected everywhere.

An example is code from a stranger's pull request. On Linux (5.13 and later) each example's
process is put under Landlock before its first cell: it may write anywhere except beneath
the protected folders (the project, the built site, the cache), and, where the kernel has
signal scoping (6.12 and later), it may signal only its own processes, not the worker or
the build. Everywhere, :func:`snapshot` before and after the examples run detects what
changed in the folders a build reads or publishes.

``MKDOCS_EXAMPLES_PORTABLE=1`` turns every Linux-only call off, to test the path macOS takes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import struct
import sys
from pathlib import Path

# prctl(2) options
_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_CHILD_SUBREAPER = 36

# landlock(7): system calls (the same number on every architecture) and rights
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_WRITE_FILE, _TRUNCATE = 1 << 1, 1 << 14
_FILE_RIGHTS = _WRITE_FILE | _TRUNCATE  # the rights that apply to a file rather than a folder
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


def linux_features() -> bool:
    """Whether the Linux-only protections are used here."""
    return sys.platform == "linux" and os.environ.get("MKDOCS_EXAMPLES_PORTABLE") != "1"


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def become_subreaper() -> None:
    """Processes orphaned below this one are re-parented to it, instead of to init."""
    _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def die_with_parent() -> None:
    """This process gets SIGKILL when the process that forked it ends."""
    _libc().prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)


def kill_group(pid: int | None) -> None:
    """SIGKILL to the process group ``pid`` leads, if any is left."""
    if pid:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


def children(pid: int) -> list[int]:
    """The living child processes of ``pid`` (Linux)."""
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as file:
                found += [int(word) for word in file.read().split()]
    return found


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers; 0 where there is none."""
    if not linux_features():
        return 0
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint(1))
    return max(0, version)


def restrict(protect: list[str], allow: list[str]) -> bool:
    """Deny this process and its children writes beneath ``protect`` (but not beneath ``allow``).

    Returns whether Landlock was applied; without it, only :func:`snapshot` detects writes.
    """
    abi = landlock_abi()
    if abi < 1 or not protect:
        return False
    handled = (1 << 13) - 1 & ~0b1101  # every write right of ABI 1: not execute, read file, read dir
    if abi >= 2:
        handled |= 1 << 13  # REFER: without it, moving files between folders is always denied
    if abi >= 3:
        handled |= _TRUNCATE
    scoped = _SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX_SOCKET if abi >= 6 else 0
    attr = struct.pack("QQQ", handled, 0, scoped)[: 24 if abi >= 6 else 16 if abi >= 4 else 8]
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(ctypes.c_long(_CREATE_RULESET), buffer, ctypes.c_size_t(len(attr)), ctypes.c_uint(0))
    if ruleset < 0:
        return False
    try:
        for path in [*_writable_around([Path(p) for p in protect]), *map(Path, allow)]:
            _allow(libc, ruleset, path, handled)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint(0)) == 0
    finally:
        os.close(ruleset)


def _writable_around(protect: list[Path]) -> list[Path]:
    """Every file and folder whose tree contains none of ``protect``, together covering the rest of the disk.

    Landlock only grants, so "everywhere but the project" is granted as the siblings of the
    project and of each of its ancestors.
    """
    protect = [p.resolve() for p in protect]
    granted: list[Path] = []

    def walk(folder: Path) -> None:
        try:
            entries = list(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.is_symlink() or any(entry == p for p in protect):
                continue  # a link is covered where it points: granting it would grant its target
            if any(p.is_relative_to(entry) for p in protect) and entry.is_dir():
                walk(entry)
            else:
                granted.append(entry)

    walk(Path("/"))
    return granted


def _allow(libc: ctypes.CDLL, ruleset: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a dangling link, or a file that went away: nothing to grant
    try:
        if not os.path.isdir(f"/proc/self/fd/{fd}"):
            rights &= _FILE_RIGHTS
        attr = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        libc.syscall(ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), attr, 0)
    finally:
        os.close(fd)


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
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR", "SHELL",
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
