"""The processes an example starts: found, named and ended, so that none outlives its example.

The worker uses the best of three ways the system allows, and says which (``info["processes"]``):

- **cgroup** (Linux, where the worker can create a cgroup v2 of its own and move a process
  into it: root, or a user whose systemd session delegates one). Each example runs in a
  cgroup of its own (:class:`Cgroups`). Whatever is still in it once the example's process has
  ended was started by that example, however it left (``setsid``, a double fork), and is
  killed at once (``cgroup.kill``, Linux 5.14+).
- **subreaper** (elsewhere on Linux). The worker and each example's process are subreapers: a
  process whose parent ends is re-parented to the example's process, and when that ends, to
  the worker, which finds it among its own children (:func:`orphans`).
- **group** (macOS, and ``MKDOCS_EXAMPLES_PORTABLE=1``): the example's process group. A process
  that leaves it (``setsid``) is not found there.

Where the system gives one, a cgroup also bounds each example (:class:`Limit`): its processes and
threads (``pids.max``), and its memory (``memory.max``, no swap), which counts what RLIMIT_DATA does
not: shared memory, and the pages of its ``/tmp`` and ``/dev/shm``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from pathlib import Path

LEFTOVER = 2.0  # seconds a process an example started has to end by itself after the example ends
# Helpers that libraries start and that end by themselves once their clients are gone, later than
# LEFTOVER allows: their name, and the seconds they have. torch_shm_manager (torch's file_system
# sharing strategy) waits about 3 s for clients that may still come before it removes its files
HELPERS = {"torch_shm_manager": 10.0}


def helper_of(entry: str) -> str | None:
    """The helper of HELPERS that ``entry`` (as :func:`name` writes it) names, if any. A process that is
    exiting has no command line left, and the kernel keeps 15 characters of its name."""
    command = entry.partition(" (")[2].split(" ", 1)[0].rstrip(")")
    return next((h for h in HELPERS if command == h or (len(command) == 15 and h.startswith(command))), None)

# prctl(2) options
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> None:
    ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def become_subreaper() -> None:
    """Processes orphaned below this one are re-parented to it, instead of to init (Linux)."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent() -> None:
    """This process gets SIGKILL when the process that forked it ends (Linux)."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def kill_group(pid: int | None) -> None:
    """SIGKILL to the process group ``pid`` leads, if any is left."""
    if pid:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


def group_alive(pgid: int) -> bool:
    """Whether any process is left running in process group ``pgid`` (every system).

    A zombie answers the signal too: a process that ended after its parent, re-parented to an
    init that reaps when it gets round to it (a container's), would count for seconds. Where
    ``/proc`` tells, a group of zombies alone has nothing left running."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # there, but not ours to signal
    if not os.path.isdir("/proc/self"):
        return True
    return any(fields[2:3] == [str(pgid)] and fields[:1] not in (["Z"], ["X"]) for fields in _all_stat_fields())


def _all_stat_fields() -> list[list[str]]:
    """``stat_fields`` of every process (Linux)."""
    with contextlib.suppress(OSError):
        return [fields for entry in os.listdir("/proc") if entry.isdigit() and (fields := stat_fields(int(entry)))]
    return []


def children(pid: int) -> list[int]:
    """The living (not zombie) child processes of ``pid`` (Linux)."""
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as file:
                found += [int(word) for word in file.read().split()]
    return [child for child in found if alive(child)]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a living process, not a zombie (Linux)."""
    return stat_fields(pid)[:1] not in ([], ["Z"], ["X"])


def stat_fields(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name: state, ppid, pgrp, session, ...; [] if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            text = file.read().decode(errors="replace")
    except OSError:
        return []
    return text.rpartition(")")[2].split()


def parent(pid: int) -> int | None:
    """The parent of ``pid`` (Linux); None when it is gone."""
    fields = stat_fields(pid)
    return int(fields[1]) if len(fields) > 1 else None


def name(pid: int) -> str:
    """``pid`` and its command line, for a message: ``4242 (python3 -c import time...)``; the name the
    kernel keeps (15 characters) where the command line is gone, as it is while a process exits."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            raw = file.read().split(b"\0")
    except OSError:
        raw = []
    words = [w.decode(errors="replace") for w in raw if w]
    command = " ".join([os.path.basename(words[0]), *words[1:]]) if words else _comm(pid)
    return f"{pid} ({command[:120] + '…' if len(command) > 120 else command})" if command else str(pid)


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            text = file.read().decode(errors="replace")
    except OSError:
        return ""
    return text.partition("(")[2].rpartition(")")[0]


def kill_all(pids: list[int]) -> None:
    """SIGKILL to each of ``pids`` and to the group each leads."""
    for pid in pids:
        kill_group(pid)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def orphans(worker: int, running: set[int]) -> list[int]:
    """The worker's children that are not examples' own processes: processes they left behind."""
    return [pid for pid in children(worker) if pid not in running]


class Cgroups:
    """A cgroup v2 of the worker's own, ``mkdocs-examples-<pid>``, with one cgroup per example beneath it."""

    def __init__(self, base: Path) -> None:
        self.base = base

    @classmethod
    def create(cls) -> tuple[Cgroups | None, str]:
        """The worker's cgroup, or None and why there is none (in words, for the build's log)."""
        found = _own_cgroup()
        if found is None:
            return None, "no cgroup v2 is mounted"
        remove_abandoned(found)
        base = found / f"mkdocs-examples-{os.getpid()}"
        try:
            base.mkdir()
        except OSError as error:
            return None, f"cannot create a cgroup in {found} ({error.strerror}; it is not delegated to this user)"
        groups = cls(base)
        probe = groups.make("probe")
        pid = os.fork()
        if pid == 0:  # can a process be moved into it? (the common ancestor's cgroup.procs must be writable)
            try:
                cls.join(probe)
                os._exit(0)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        groups.remove(probe)
        if status != 0:
            groups.close()
            return None, f"cannot move a process into a cgroup beneath {found} (not delegated to this user)"
        return groups, f"a cgroup v2 per example, beneath {base}"

    def make(self, name: str) -> Path:
        folder = self.base / name
        folder.mkdir(exist_ok=True)
        return folder

    @staticmethod
    def join(folder: Path) -> None:
        """Move the calling process into ``folder`` (in the forked child, before the example runs)."""
        (folder / "cgroup.procs").write_text("0")

    @staticmethod
    def cpu(folder: Path) -> float | None:
        """CPU seconds the processes of ``folder`` have used, those that have ended included; None where unknown."""
        try:
            for line in (folder / "cpu.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        except (OSError, ValueError):
            pass
        return None

    @staticmethod
    def members(folder: Path) -> list[int]:
        try:
            return [int(word) for word in (folder / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    @classmethod
    def kill(cls, folder: Path) -> None:
        """SIGKILL to every process in ``folder`` and beneath: at once with ``cgroup.kill`` (5.14+), else one by one."""
        try:
            (folder / "cgroup.kill").write_text("1")
            return
        except OSError:
            pass
        for _ in range(100):  # a process may fork while it is being killed
            members = [pid for f in [folder, *[p for p in folder.rglob("*") if p.is_dir()]] for pid in cls.members(f)]
            if not members:
                return
            kill_all(members)
            time.sleep(0.01)

    @staticmethod
    def remove(folder: Path) -> None:
        """Remove an example's cgroup once it is empty (killed processes take a moment to leave it)."""
        for _ in range(200):
            try:
                folder.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.005)

    def close(self) -> None:
        """Kill everything left beneath the worker's cgroup, and remove it."""
        self.kill(self.base)
        for folder in sorted((p for p in self.base.glob("*") if p.is_dir()), reverse=True):
            self.remove(folder)
        self.remove(self.base)


# The files that bound an example in a cgroup, by controller and hierarchy (v2: True): its limit, and the swap
# it may use beside it, none (memory.memsw counts both together), where the kernel accounts for swap
_BOUNDS = {
    ("pids", True): ("pids.max", None), ("pids", False): ("pids.max", None),
    ("memory", True): ("memory.max", "memory.swap.max"),
    ("memory", False): ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"),
}  # fmt: skip
_PROBE = {"pids": 1 << 10, "memory": 1 << 30}  # a bound every kernel takes: written once, to check it can be


class Limit:
    """Each example's ``pids.max`` or ``memory.max``: a folder of the worker's own in a cgroup hierarchy with
    the controller (v1's, or v2's where :class:`Cgroups` can enable it), with one folder per example."""

    def __init__(self, base: Path, controller: str, unified: bool = True) -> None:
        self.base, self.controller = base, controller
        self.unified = unified  # cgroup v2: a process is in one cgroup there, so this one finds it too

    @classmethod
    def pids(cls, cgroups: Cgroups | None) -> tuple[Limit | None, str | None]:
        """The limit on processes, or None and why there is none. Tried in turn: the examples' own cgroups
        (v2, where their base can enable the controller); the nearest folder above the worker's cgroup v2
        that has the controller and lets the worker move processes (root, or a cgroup delegated to the
        user, as README's "Where it runs" shows); the pids hierarchy of cgroup v1."""
        if cgroups is not None:
            with contextlib.suppress(OSError):
                (cgroups.base / "cgroup.subtree_control").write_text("+pids")
                return cls(cgroups.base, "pids"), None  # the examples' own cgroups carry pids.max
        for found, unified in [*((f, True) for f in _v2_ancestors()), (_own_cgroup(controller="pids"), False)]:
            if found is not None and (limit := cls._beneath(found, "pids", unified)) is not None:
                return limit, None
        return None, "no cgroup with the pids controller that the worker can create and join"

    @classmethod
    def memory(cls, unified: Path | None) -> tuple[Limit | None, str | None]:
        """The limit on memory, or None and why there is none. A process is in one cgroup v2, so there it
        can only be the examples' own: those made in ``unified``, where the controller can be enabled for
        them (:func:`_enable`); else in a folder of the worker's own in cgroup v1's memory hierarchy."""
        if unified is not None and _enable(unified, "memory"):
            return cls(unified, "memory"), None
        found = _own_cgroup(controller="memory")
        if found is not None and (limit := cls._beneath(found, "memory", unified=False)) is not None:
            return limit, None
        return None, "no cgroup with the memory controller that the worker can create and join"

    @classmethod
    def _beneath(cls, folder: Path, controller: str, unified: bool) -> Limit | None:
        """A limit in a folder of the worker's own beneath ``folder``, once a process could join it."""
        remove_abandoned(folder)
        try:
            base = folder / f"mkdocs-examples-{os.getpid()}"
            base.mkdir(exist_ok=True)
        except OSError:
            return None
        limit = cls(base, controller, unified)
        try:
            probe = limit.make("probe", _PROBE[controller])
        except OSError:
            limit.close()
            return None
        pid = os.fork()
        if pid == 0:
            try:
                Cgroups.join(probe)
                os._exit(0)
            except BaseException:
                os._exit(1)
        joined = os.waitpid(pid, 0)[1] == 0
        Cgroups.remove(probe)
        if not joined:
            limit.close()
        return limit if joined else None

    def make(self, name: str, most: int) -> Path:
        """The folder of one example's limit, bounded by ``most`` (processes, or bytes of memory, with no swap
        beside them); the example's own cgroup where they share a folder."""
        folder = self.base / name
        folder.mkdir(exist_ok=True)
        bound, swap = _BOUNDS[self.controller, self.unified]
        (folder / bound).write_text(str(most))
        if swap is not None:
            with contextlib.suppress(FileNotFoundError):  # a kernel that does not account for swap
                (folder / swap).write_text("0" if self.unified else str(most))
        return folder

    def kills(self, folder: Path) -> int:
        """How many processes of the example in ``folder`` the kernel killed at its memory limit."""
        with contextlib.suppress(OSError, ValueError):
            events = folder / ("memory.events" if self.unified else "memory.oom_control")
            for line in events.read_text().splitlines():
                key, _, count = line.partition(" ")
                if key == "oom_kill":
                    return int(count)
        return 0

    def close(self) -> None:
        _remove_empty(self.base)


def remove_abandoned(parent: Path) -> None:
    """Remove the folders ``mkdocs-examples-<pid>`` in ``parent`` whose worker is gone: one killed with its
    build (``kill -9`` of both) leaves them to no one. Only those in which nothing runs: the kernel refuses
    to remove a cgroup with a process in it, and that refusal is the check."""
    if not os.path.isdir("/proc/self"):  # without /proc, every worker would look gone
        return
    with contextlib.suppress(OSError):
        for base in parent.glob("mkdocs-examples-*"):
            pid = base.name.rpartition("-")[2]
            if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                _remove_empty(base)


def _remove_empty(base: Path) -> None:
    """Remove the cgroups beneath ``base``, then ``base``: those in which nothing runs (the kernel refuses others)."""
    for folder in [*sorted((p for p in base.glob("*") if p.is_dir()), reverse=True), base]:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _enable(folder: Path, controller: str) -> bool:
    """Whether ``controller`` is enabled for the children of ``folder`` (cgroup v2), enabling it there and in
    the folders above it that lack it, up to the nearest whose parent offers it: what a delegated cgroup
    (root's, or one given to the user) lets the worker do. Never in the hierarchy's root, which would
    enable it for the whole system, nor in a folder with processes of its own, which the kernel refuses."""
    chain = []
    for each in [folder, *folder.parents]:
        if not (each / "cgroup.events").exists():
            return False  # the root, or above the hierarchy
        chain.append(each)
        with contextlib.suppress(OSError):
            if controller in (each / "cgroup.controllers").read_text().split():
                break
    else:
        return False
    try:
        for each in reversed(chain):
            (each / "cgroup.subtree_control").write_text(f"+{controller}")
    except OSError:
        return False
    return True


def _v2_ancestors() -> list[Path]:
    """The folders above the worker's cgroup v2, nearest first, whose children have the pids controller."""
    own = _own_cgroup()
    found = []
    for folder in own.parents if own is not None else []:
        with contextlib.suppress(OSError):
            if "pids" in (folder / "cgroup.subtree_control").read_text().split():
                found.append(folder)
        if not (folder / "cgroup.procs").exists():
            break  # above the hierarchy's mount point
    return found


def _own_cgroup(controller: str | None = None) -> Path | None:
    """The folder of this process's cgroup v2 (or of ``controller``'s v1 hierarchy), where one is mounted."""
    try:
        with open("/proc/self/cgroup") as file:
            found = [line.rstrip("\n").split(":", 2) for line in file]
        with open("/proc/self/mountinfo") as file:
            mounts = [line.split() for line in file]
    except OSError:
        return None
    # "0::/path" for v2; "8:pids:/path" for a v1 hierarchy of that controller
    mine = [f for f in found if len(f) == 3 and (f[1] == controller if controller else f[:2] == ["0", ""])]
    path = mine[0][2] if mine else None
    kind = "cgroup2" if controller is None else "cgroup"
    for fields in mounts:
        separator = fields.index("-") if "-" in fields else -1
        wanted = not controller or controller in fields[-1].split(",")  # v1: the controller's own hierarchy
        if path is not None and separator > 0 and fields[separator + 1] == kind and wanted:
            root, point = fields[3], fields[4]
            relative = os.path.relpath(path, root) if path.startswith(root) else None
            if relative is not None and not relative.startswith(".."):
                return Path(point, relative).resolve()
    return None
