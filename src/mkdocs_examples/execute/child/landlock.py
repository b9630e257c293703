"""Landlock (Linux 5.13+): what an example's process may read and write, decided once per worker.

An example may *read* only what programs need and what it is about: the project (but not its
``.git``), the Python installation(s) and every folder Python imports from, the C and C++
compilers' installations (``CC``, ``CXX``: inductor compiles with them), the system's
programs and libraries (``/usr``, ``/lib*``, ``/bin``, ``/sbin``), ``/etc`` but for the files
that hold secrets (:data:`ETC_SECRETS`), ``/proc``, ``/sys``, ``/dev`` but for block devices,
and its own folder. It may *write* only in its own folder, ``/dev/shm`` (shared memory: torch's
DataLoader workers pass tensors through it) and the character devices of ``/dev``
(``/dev/null``, a GPU's device files). Nothing else: not the user's home, not other folders of
``/tmp``, not the project, not Python's installation or this engine.

Landlock can only grant, never deny beneath a grant, so "``/etc`` but its secrets" is granted as
the parts of ``/etc`` that contain none of them (:func:`around`). The rules are worked out and
their folders opened once, in the worker (:func:`prepare`); each forked child only adds its own
folder and restricts itself (:func:`restrict`), which costs a few hundred system calls instead of
a walk of the disk. A restricted process also cannot ``ptrace`` or read ``/proc/<pid>/environ``
of a process outside its domain (the build, the user's shell), and where the kernel has scoping
(ABI 6, Linux 6.12+) it cannot signal them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import site
import stat
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

# landlock(7): system calls (the same number on every architecture), rights and scopes
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # the rights that apply to a file
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = READ_FILE | READ_DIR
DEVICE = READ | WRITE_FILE | TRUNCATE  # open /dev/null or a GPU for writing; create nothing there
_MAKE = REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM
ALL = READ | WRITE_FILE | _MAKE | REFER | TRUNCATE  # everything handled (execute and device ioctls are not)

# The system's programs, libraries and data, and what the kernel shows of processes and devices
SYSTEM = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/proc", "/sys")
# Files of /etc that hold secrets. Most are readable by root only, so this matters when a build
# runs as root (a container): password hashes, sudo rules, the host's SSH keys, TLS private keys,
# Kerberos keys, Wi-Fi and VPN passwords, registry credentials
ETC_SECRETS = (
    "shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d", "ssh", "ssl/private", "security",
    "krb5.keytab", "NetworkManager/system-connections", "wpa_supplicant", "wireguard", "ppp", "docker",
    "containers/auth.json", "credstore", "credstore.encrypted",
)  # fmt: skip


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi() -> int:
    """The Landlock ABI version this kernel offers; 0 where there is none (Linux only)."""
    if sys.platform != "linux":
        return 0
    flags = ctypes.c_uint(_CREATE_RULESET_VERSION)
    version = _libc().syscall(ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), flags)
    return max(0, version)


@dataclass(frozen=True)
class Rules:
    """What a child may read and write, as rights on folders the worker holds open (``O_PATH``)."""

    abi: int
    handled: int
    grants: tuple[tuple[int, int], ...]  # (descriptor, rights)


def readable_installations() -> list[Path]:
    """Python's installation(s), every folder it imports from, CUDA's and the compilers', but the
    current folder (``-m`` puts it first: it may be anything, the user's home included), the root
    and the home."""
    found = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages()]
    found += [site.getusersitepackages(), *sys.path, str(Path(__file__).parents[2])]  # and this engine
    found += os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)  # where CUDA may be, like:
    found += [os.environ.get(name, "") for name in ("CUDA_HOME", "CUDA_PATH")]
    found += [str(p) for p in compilers()]
    skip = {Path.cwd(), Path("/"), Path.home()}
    return [Path(p) for p in dict.fromkeys(found) if p and os.path.isabs(p) and Path(p) not in skip]


def compilers() -> list[Path]:
    """Where the C and C++ compilers that inductor and Triton call (``CC``, ``CXX``) are installed:
    ``/opt/gcc`` for ``CXX=/opt/gcc/bin/g++`` (its ``libexec`` and ``include`` too)."""
    found = []
    for name in ("CC", "CXX"):
        program = shutil.which(os.environ.get(name, ""))
        if program:
            real = Path(os.path.realpath(program))
            found.append(real.parent.parent if real.parent.name == "bin" else real.parent)
    return found


def prepare(project: list[Path]) -> Rules | None:
    """The rules of every example of this worker; None where Landlock is not available.

    ``project``: folders an example may read (the project, the examples); their ``.git`` is left out.
    """
    version = abi()
    if version < 1:
        return None
    handled = ALL & ~(REFER if version < 2 else 0) & ~(TRUNCATE if version < 3 else 0)
    wanted: list[tuple[Path, int]] = [(Path(p), READ) for p in SYSTEM]
    wanted += [(p, READ) for p in around(Path("/etc"), [Path("/etc", name) for name in ETC_SECRETS])]
    wanted += [(p, DEVICE) for p in around(Path("/dev"), [*_block_devices(Path("/dev")), Path("/dev/shm")])]
    wanted += [(Path("/dev/shm"), ALL)]
    wanted += [(p, READ) for p in readable_installations()]
    for folder in project:
        wanted += [(p, READ) for p in around(folder, [folder / ".git"])]
    grants = []
    for path, rights in wanted:
        with contextlib.suppress(OSError):  # a folder this system does not have
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            grants.append((fd, _rights_for(fd, rights & handled)))
    return Rules(version, handled, tuple(grants))


def restrict(rules: Rules, writable: list[Path], readable: tuple[Path, ...] | list[Path] = ()) -> bool:
    """Restrict this process (and all it starts) to ``rules``, plus everything beneath ``writable``
    and reading beneath ``readable`` (what its own namespaces mounted: /proc, /dev).

    Returns whether the kernel applied them. Call it once, in the forked child, before the example runs.
    """
    scoped = _SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX_SOCKET if rules.abi >= 6 else 0
    attr = struct.pack("QQQ", rules.handled, 0, scoped)[: 24 if rules.abi >= 6 else 16 if rules.abi >= 4 else 8]
    libc = _libc()
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(ctypes.c_long(_CREATE_RULESET), buffer, ctypes.c_size_t(len(attr)), ctypes.c_uint(0))
    if ruleset < 0:
        return False
    try:
        for fd, rights in rules.grants:
            _add(libc, ruleset, fd, rights)
        for folder, rights in [*((f, rules.handled) for f in writable), *((f, READ) for f in readable)]:
            fd = os.open(folder, os.O_PATH | os.O_CLOEXEC)
            try:
                _add(libc, ruleset, fd, _rights_for(fd, rights & rules.handled))
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint(0)) == 0
    finally:
        os.close(ruleset)


def around(top: Path, excluded: list[Path]) -> list[Path]:
    """Everything beneath ``top`` but ``excluded``, as few files and folders as cover it.

    Landlock only grants, so "``/etc`` but ``/etc/shadow``" is granted as the entries of ``/etc``
    other than ``shadow``, going down only into folders that hold an excluded path. Links are
    left out: a rule on a link would grant where it points.
    """
    excluded = [p for p in excluded if p.is_relative_to(top) and os.path.lexists(p)]  # else all of ``top``: what
    if not excluded:  # is made beneath it later (an example's data file) is granted too
        return [top]
    granted: list[Path] = []

    def walk(folder: Path) -> None:
        try:
            entries = list(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.is_symlink() or entry in excluded:
                continue
            if entry.is_dir() and any(p.is_relative_to(entry) for p in excluded):
                walk(entry)
            else:
                granted.append(entry)

    if top not in excluded:
        walk(top)
    return granted


def _block_devices(folder: Path) -> list[Path]:
    """Block devices beneath ``folder`` (disks: an example must never write to one)."""
    found = []
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(top, name)
            with contextlib.suppress(OSError):
                if stat.S_ISBLK(os.lstat(path).st_mode):
                    found.append(Path(path))
    return found


def _rights_for(fd: int, rights: int) -> int:
    """``rights`` as they may apply to what ``fd`` is: only file rights on a file."""
    return rights if os.path.isdir(f"/proc/self/fd/{fd}") else rights & _FILE_RIGHTS


def _add(libc: ctypes.CDLL, ruleset: int, fd: int, rights: int) -> None:
    attr = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
    libc.syscall(ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), attr, 0)
