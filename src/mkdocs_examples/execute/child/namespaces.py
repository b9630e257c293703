"""Linux namespaces: each example gets a network of its own, a loopback and nothing else.

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

import ctypes
import fcntl
import os
import socket
import struct

_CLONE_NEWUSER, _CLONE_NEWNET = 0x10000000, 0x40000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
_CAPABILITY_VERSION_3 = 0x20080522


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _unshare(flags: int) -> None:
    if _libc().unshare(flags) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


def isolate_network() -> None:
    """Move this process into a new network namespace with its loopback up; OSError if it cannot."""
    _unshare(_CLONE_NEWNET)
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


def _works(enter_user: bool) -> str | None:
    """Try, in a forked process, what each child will do; None if it works, else why not."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            if enter_user:
                _enter_user_namespace()
            isolate_network()
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
    if os.geteuid() == 0 and _works(enter_user=False) is None:
        return None
    why = _works(enter_user=True)
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
