"""The filesystem an example sees: a root of its own, made of read-only views (Linux).

In a mount namespace of its own, the example's first process builds a new root on an empty
``tmpfs`` and moves into it (``pivot_root``), as bubblewrap and nsjail do. The root holds:

- read-only views of what an example may read: the system's programs and libraries, ``/etc``,
  ``/sys``, the Python installation(s) and the project (:func:`readable`); Landlock still decides
  which files of these it may open;
- its own folder (``box``), writable, at the same path as outside: for the engine's examples a ``tmpfs`` of
  its own, empty, gone with it, of at most ``max_folder_size`` MiB and ``max_files`` files and folders
  (:func:`tmpfs_options`); for a runner that shares it with a client (a notebook's kernel), the folder itself;
- a ``/tmp`` and a ``/dev/shm`` of its own, empty, gone with it, each of at most half its memory
  and ``max_files`` files and folders;
- a ``/dev`` with ``null``, ``zero``, ``full``, ``random`` and ``urandom`` only (and the GPU's
  nodes when it runs on CUDA): no ``/dev/kmsg``, no disk, no terminal of the builder's;
- a ``/proc`` of its PID namespace: it sees its own processes and sockets, none of the builder's, and
  none of the host's load (:mod:`.masks`).

What is not there cannot be reached: the builder's home, ``/run`` and ``/var`` (the sockets of
an ssh-agent or a Docker daemon), other examples' folders and the rest of ``/tmp``.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
from pathlib import Path

# mount(2) flags
_RDONLY, _NOSUID, _NODEV, _NOEXEC, _REMOUNT, _BIND, _REC, _PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, 1 << 18
_DETACH = 2  # umount2(2)
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}  # its system call
# statvfs flags that a read-only remount must keep (a user namespace may not clear them)
_KEPT = {os.ST_NOSUID: _NOSUID, os.ST_NODEV: _NODEV, os.ST_NOEXEC: _NOEXEC}

DEVICES = ("null", "zero", "full", "random", "urandom")
GPU_DEVICES = ("nvidia*", "nvidia-caps/*", "dri/*")  # bound only when examples run on CUDA
SYSTEM = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/sys", "/opt")


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _call(name: str, *args: object) -> None:
    if getattr(_libc(), name)(*args) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{name}({', '.join(str(a) for a in args if a is not None)}): {os.strerror(number)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    encoded = [None if value is None else value.encode() for value in (source, target, kind, data)]
    _call("mount", encoded[0], encoded[1], encoded[2], ctypes.c_ulong(flags), encoded[3])


def readable(python: list[Path], project: list[Path]) -> list[Path]:
    """The folders an example's root shows read-only: the system's, Python's and the project's, at
    their real paths and where they are named through links, without those beneath another one of
    them (a bind of the outer folder shows them)."""
    found: set[Path] = set()
    for path in [*map(Path, SYSTEM), *python, *project]:
        if os.path.exists(path):
            real, literal = Path(os.path.realpath(path)), Path(os.path.abspath(path))
            found.add(real)
            # Also where it is named through a link (a virtualenv reached by a link to it: sys.path
            # names the link), but for the system's top-level links, which the root has as links
            if literal != real and not os.path.islink(os.path.join("/", *literal.parts[1:2])):
                found.add(literal)
    wanted = sorted(found)
    kept: list[Path] = []
    for path in wanted:
        own = any(Path(folder).is_relative_to(path) for folder in ("/tmp", "/dev", "/proc"))  # the root, or its own
        if not own and not any(path.is_relative_to(outer) for outer in kept):
            kept.append(path)
    return kept


def _bind(source: str, root: str, *, writable: bool = False, place: str | None = None) -> None:
    """Show ``source`` at the same path beneath ``root`` (or at ``place`` there); read-only unless ``writable``."""
    target = root + (place or source)
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "a"):
            pass
    _mount(source, target, None, _BIND | _REC)
    if not writable:
        kept = sum(flag for bit, flag in _KEPT.items() if os.statvfs(target).f_flag & bit)
        _mount(None, target, None, _REMOUNT | _BIND | _RDONLY | kept)


def _links(root: str) -> None:
    """The system's top-level links (``/bin -> usr/bin`` on a merged /usr) as the same links."""
    for name in os.listdir("/"):
        path = "/" + name
        if os.path.islink(path) and not os.path.lexists(root + path):
            os.symlink(os.readlink(path), root + path)


# Files and folders of its own folder that the engine makes (its home, TMPDIR... in sandbox.OWN_FOLDERS, the
# runner's working folder and output, inductor's headers): on top of ``max_files``, which is the example's
ENGINE_FILES = 64


def tmpfs_options(size: int, files: int, *, mode: str = "1777") -> str:
    """The options of a ``tmpfs`` of the example's of at most ``size`` KiB and ``files`` files and folders
    (0: no limit, the kernel's default: half the RAM, and an inode per two pages of it). A write past either
    fails with ENOSPC ("No space left on device"). Its /tmp and /dev/shm each hold half of ``max_memory``, as
    the kernel's default gives each half the RAM: where they would otherwise fill memory until the memory
    cgroup, which counts their pages too, kills the example; and where there is no memory cgroup, nothing
    else would stop it. Each inode costs the kernel memory too, and time to remove: hence ``max_files``."""
    return f"mode={mode}" + (f",size={size}k" if size > 0 else "") + (f",nr_inodes={files}" if files > 0 else "")


def _limits(memory: int, files: int, folder: int) -> tuple[str, str]:
    """The tmpfs options of its /tmp and /dev/shm, and of its own folder, from the options ``max_memory``,
    ``max_files`` and ``max_folder_size`` (0: no limit)."""
    files = files + ENGINE_FILES if files > 0 else 0
    return tmpfs_options(memory * 512, files), tmpfs_options(folder << 10, files, mode="0755")


def build(
    root: Path, views: list[Path], box: Path, *, gpu: bool, shared: dict[Path, Path] | None = None,
    read_only: dict[Path, Path] | None = None, memory: int = 0, files: int = 0, folder: int = 0,
    in_memory: bool = False,
) -> None:  # fmt: skip
    """Make ``root`` (an empty folder) the example's root: views, its box, /tmp, /dev and a mount
    point for /proc; ``shared``: folders shown writable at a place in its box (target: source);
    ``read_only``: files shown read-only at a place in those, over a file of that name there (target:
    source); ``memory``, ``files``, ``folder``: the options ``max_memory``, ``max_files`` and
    ``max_folder_size`` (:func:`tmpfs_options`); ``in_memory``: the box is a tmpfs of its own, empty, rather than
    ``box`` itself, which a runner that shares it with a client needs (a notebook's kernel: its connection
    file and sockets). Mounts nothing outside this process's mount namespace."""
    temporary, own = _limits(memory, files, folder)
    _mount(None, "/", None, _REC | _PRIVATE)  # nothing mounted here propagates to the builder
    top = str(root)
    _mkdir(top)
    _mount("tmpfs", top, "tmpfs", _NOSUID | _NODEV, "mode=0755,size=1m")
    _links(top)
    _mkdir(top + "/tmp")  # first: views and the box beneath /tmp (a test's project) go into it
    _mount("tmpfs", top + "/tmp", "tmpfs", _NOSUID | _NODEV, temporary)
    for view in views:
        _bind(str(view), top)
    if in_memory:  # its folder: in memory, not on the builder's disk, capped, and gone with it
        _mkdir(top + str(box))
        _mount("tmpfs", top + str(box), "tmpfs", _NOSUID | _NODEV, own)
    else:
        _bind(str(box), top, writable=True)
    for place, source in (shared or {}).items():
        os.makedirs(top + str(place), exist_ok=True)
        _mount(str(source), top + str(place), None, _BIND)
    for place, source in (read_only or {}).items():  # a mount point: it cannot be removed or renamed either
        _bind(str(source), top, place=str(place))
    _mkdir(top + "/dev")
    _mount("tmpfs", top + "/dev", "tmpfs", _NOSUID | _NOEXEC, "mode=0755,size=64k")
    for name in DEVICES:
        _bind(f"/dev/{name}", top, writable=True)
    for pattern in GPU_DEVICES if gpu else ():
        for path in glob.glob(f"/dev/{pattern}"):
            _bind(path, top, writable=True)
    _mkdir(top + "/dev/shm")
    _mount("tmpfs", top + "/dev/shm", "tmpfs", _NOSUID | _NODEV, temporary)
    for name, link in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                       ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(link, f"{top}/dev/{name}")
    _mkdir(top + "/proc")


def enter(root: Path, covers: dict[str, Path] | None = None) -> None:
    """Move into ``root`` (from :func:`build`), mount this PID namespace's /proc with ``covers`` read-only over
    its host-wide files ({name in /proc: file or folder}, :func:`.masks.write`), and let go of the old root.
    In the namespace's first process: /proc shows the processes of the namespace it was made in."""
    old = root / ".old"
    _mkdir(str(old))
    _call("syscall", ctypes.c_long(_PIVOT_ROOT[os.uname().machine]), str(root).encode(), str(old).encode())
    os.chdir("/")
    _mount("proc", "/proc", "proc", _NOSUID | _NODEV | _NOEXEC)
    for name, source in (covers or {}).items():  # mounts: without capabilities, the example cannot undo them
        target = f"/proc/{name}"
        _mount(f"/.old{source}", target, None, _BIND)
        kept = sum(flag for bit, flag in _KEPT.items() if os.statvfs(target).f_flag & bit)
        _mount(None, target, None, _REMOUNT | _BIND | _RDONLY | _NOSUID | _NODEV | _NOEXEC | kept)
    _call("umount2", b"/.old", ctypes.c_int(_DETACH))
    os.rmdir("/.old")
    _mount(None, "/", None, _REMOUNT | _BIND | _RDONLY | _NOSUID | _NODEV)  # nothing new at the top


def _mkdir(path: str) -> None:
    with contextlib.suppress(FileExistsError):
        os.makedirs(path)
