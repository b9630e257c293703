"""Linux namespaces: each example sees nothing of the builder.

Each example runs in new mount, PID, IPC, UTS and network namespaces (:func:`isolate`): its
own root of read-only views (:mod:`.mounts`), its own processes (the first one is its init,
:func:`init`), its own System V shared memory and semaphores, gone with it, and its own
network. Where the kernel refuses these, a network namespace alone is the fallback.

A new network namespace has one interface, ``lo``, down; the child brings it up (``SIOCSIFFLAGS``,
no ``ip`` command), so that processes of one example can still talk to each other over
127.0.0.1 (``torch.distributed`` on gloo, a DataLoader's workers), while nothing reaches
another example, the machine's services or the internet.

Making one needs ``CAP_SYS_ADMIN``: root has it; an ordinary user first enters a user namespace
of its own (:func:`prepare`, in the worker, while it is still one thread), where it has it.
Where neither works (user namespaces disabled, or restricted by AppArmor as on Ubuntu 23.10+,
a container without the capability, macOS) the network is not isolated, and the build says so.
Before the example runs, the child drops every capability (:func:`drop_capabilities`).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import signal
import socket
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from mkdocs_examples.execute.child import processes

_CLONE_NEWUSER, _CLONE_NEWNET = 0x10000000, 0x40000000
_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC, _CLONE_NEWPID = 0x00020000, 0x04000000, 0x08000000, 0x20000000
EXAMPLE = _CLONE_NEWNS | _CLONE_NEWUTS | _CLONE_NEWIPC | _CLONE_NEWPID | _CLONE_NEWNET  # what isolate() makes
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
_CAPABILITY_VERSION_3 = 0x20080522
# clone(2)'s number where its first argument is the flags (s390x takes the stack first: it forks and unshares)
_CLONE = {"x86_64": 56, "aarch64": 220, "riscv64": 220, "ppc64le": 120}
_CLONE3, _CLONE_INTO_CGROUP = 435, 0x200000000  # clone3(2), the same number on each of those (Linux 5.7+)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _unshare(flags: int) -> None:
    if _libc().unshare(flags) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


def isolate_network(flags: int = _CLONE_NEWNET) -> None:
    """Move this process into a new network namespace with its loopback up (and into the other new
    namespaces of ``flags``: its children into the PID namespace); OSError if it cannot."""
    _unshare(flags)
    loopback_up()


def loopback_up() -> None:
    """Bring up the loopback of this process's network namespace."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh14x", b"lo", 0)
        flags = struct.unpack("16sh14x", fcntl.ioctl(sock, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sh14x", b"lo", flags | _IFF_UP))


def _enter_user_namespace() -> None:
    """Become root of a user namespace of our own, as the same user seen from outside."""
    uid, gid = os.getuid(), os.getgid()
    _unshare(_CLONE_NEWUSER)
    for file, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{file}", "w") as handle:
            handle.write(text)


def trial(work: Callable[[], None], *, enter_user: bool = False) -> str | None:
    """Run ``work`` in a forked process, as each child will; None if it works, else why not.
    What ``work`` forks writes why it failed into the same pipe."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            if enter_user:
                _enter_user_namespace()
            work()
            os._exit(0)
        except BaseException as error:
            os.write(write, str(error).encode()[:500])
            os._exit(1)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        why = pipe.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    return None if status == 0 else why or f"status {status}"


def prepare() -> str | None:
    """In the worker, while it is one thread: make sure each child can isolate its network.

    Returns None when it can, else why not (one sentence for the build's log). An ordinary user
    enters a user namespace here, so that the worker's children hold the capability they need.
    """
    if os.geteuid() == 0 and trial(isolate_network) is None:
        return None
    why = trial(isolate_network, enter_user=True)
    if why is not None:
        return f"no user namespace with a network of its own can be made here ({why})"
    try:
        _enter_user_namespace()
    except OSError as error:
        return f"no user namespace can be entered ({error})"
    return None


def drop_capabilities() -> None:
    """Drop every capability, for this process and whatever it runs (root's included): no program it
    runs gains one back (``no_new_privs``: not by set-user-ID either)."""
    libc = _libc()
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    for number in range(64):  # the bounding set: no program it runs regains one
        if libc.prctl(_PR_CAPBSET_DROP, number, 0, 0, 0) != 0 and ctypes.get_errno() == 22:  # EINVAL: no more
            break
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = struct.pack("Ii", _CAPABILITY_VERSION_3, 0)
    data = bytes(24)  # effective, permitted, inheritable: none, in two 32-bit halves
    libc.capset(ctypes.c_char_p(header), ctypes.c_char_p(data))


# --- the example's PID namespace --------------------------------------------------------


def forked_init() -> None:
    """After :func:`isolate_network` with :data:`EXAMPLE`: fork the PID namespace's first process
    and return in it; the caller's process waits for it, ends as it ends, and never returns."""
    pid = os.fork()
    if pid == 0:
        processes.die_with_parent()
        return
    end_as(pid)


def can_clone() -> bool:
    """Whether :func:`clone` can start a process here: a known system call, and this process is
    one thread (clone(2) skips what fork(3) does for the locks other threads may hold)."""
    return os.uname().machine in _CLONE and len(os.listdir("/proc/self/task")) == 1


def clone(into: Path | None = None) -> int:
    """Fork, with the child the first process of new :data:`EXAMPLE` namespaces (then :func:`loopback_up`): the
    process an example's namespaces need, made in one fork where :func:`isolate_network` and
    :func:`forked_init` take two, and an exit fewer (each a copy of the worker, torch's size).
    In the child, Python's and the C library's at-fork handlers have not run: it forks the example's
    process with ``os.fork``, which runs them there. Returns as ``os.fork`` does; only if :func:`can_clone`.
    The child ends as :func:`init` ends: :func:`exit_status` reads its status as the example's.
    ``into``: a cgroup v2 the child starts in (clone3's ``CLONE_INTO_CGROUP``), where joining it later
    would move it there, which waits for the kernel's sync of every cgroup, several ms on a busy machine;
    OSError where the kernel cannot (a cgroup v1, Linux before 5.7, a filter that refuses clone3)."""
    if into is None:
        pid = _libc().syscall(ctypes.c_long(_CLONE[os.uname().machine]), ctypes.c_ulong(EXAMPLE | signal.SIGCHLD),
                              None, None, None, None)  # fmt: skip
    else:
        cgroup = os.open(into, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        # struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
        # set_tid, set_tid_size, cgroup; no stack: the child goes on on a copy of this one, as after fork
        args = struct.pack("11Q", EXAMPLE | _CLONE_INTO_CGROUP, 0, 0, 0, signal.SIGCHLD, 0, 0, 0, 0, 0, cgroup)
        pid = _libc().syscall(ctypes.c_long(_CLONE3), ctypes.c_char_p(args), ctypes.c_size_t(len(args)))
        number = ctypes.get_errno()
        os.close(cgroup)
        ctypes.set_errno(number)
    if pid < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"clone: {os.strerror(number)}")
    return pid


def exit_status(code: int) -> int:
    """The example's exit status from that of its namespace's first process (:func:`init`), which a
    signal cannot end: 128 + a signal's number is the example killed by that signal (``-number``)."""
    return -(code - 128) if code > 128 and code - 128 in signal.valid_signals() else code


def end_as(pid: int) -> NoReturn:
    """Wait for the child ``pid`` and end as it ended (a child that :func:`init` ended with 128 + a
    signal's number: killed by that signal)."""
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code > 128 and code - 128 in signal.valid_signals():  # the example was killed: so is this process
        with contextlib.suppress(OSError):  # (SIGKILL has no handler to reset)
            signal.signal(code - 128, signal.SIG_DFL)
        os.kill(os.getpid(), code - 128)
    os._exit(code)


def init(example: int, report: int, leftover: float, deadline: float) -> NoReturn:
    """The namespace's first process, once the example's process (``example``) has started: reap
    every process, and when the example's has ended, give what it left ``leftover`` seconds to end.
    Then write to ``report`` when it ended (``time.monotonic()``) and what it left running (names,
    but of processes.HELPERS, which a library starts and which end with their clients), and end as it
    ended: the kernel kills the rest. It answers by ``deadline``, before the worker's timeout."""
    status = 0
    while True:
        pid, found = os.waitpid(-1, 0)
        if pid == example:
            status = found
            break
    ended = time.monotonic()
    until = min(ended + leftover, deadline)  # answered before the worker's timeout kills it
    while True:
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        left = [pid for pid in _processes() if pid != 1 and processes.alive(pid)]
        named = [processes.name(pid) for pid in left]
        if not left or time.monotonic() > until or all(processes.helper_of(n) for n in named):
            break
        time.sleep(0.02)
    names = [name for name in named if not processes.helper_of(name)] if left else []
    os.write(report, json.dumps({"ended": ended, "left": names}).encode())
    code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)  # init cannot kill itself: a signal ends it as 128 + its number


def _processes() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
