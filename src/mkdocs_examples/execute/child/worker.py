"""The worker: imports the heavy modules once, then forks one child per example.

``python -m mkdocs_examples.execute.child.worker '<json>'`` runs in a session of its own,
prepares the sandbox (:mod:`.sandbox`: on Linux a user namespace where it needs one, a cgroup
where it can, Landlock's rules), imports the preloaded modules, touches neither CUDA nor any
thread pool, then waits for batches on stdin. For each example of a batch it forks a child, at
most ``parallel`` at a time, and answers one JSON line per event on a pipe of its own (what a
preloaded module prints goes to stderr, never into the answers). The child enters the sandbox
and closes every descriptor of the worker's before the example runs: an example cannot write
to the pool.

Nothing outlives its example: once an example's process has ended, what it left running is
found (:mod:`.processes`: its cgroup, the worker's orphans, or its process group), named in the
answer, and killed. The worker ends when its stdin ends, which happens however the build ends
(Ctrl-C, ``kill -9``), and takes every example's processes with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import importlib
import json
import os
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs_examples.execute.child import headers, namespaces, processes, sandbox, scratch
from mkdocs_examples.execute.child.runner import REAL_EXIT, preload_metadata, run_example
from mkdocs_examples.results import Options
from mkdocs_examples.source.cells import Example

GRACE = 1.0  # seconds after a timeout for faulthandler to write the stack before the kill
TICK = 0.5  # seconds between heartbeats while a batch runs
# With `fill`, a running example whose processes used less than WAITING of a core over the last WINDOW
# seconds waits (a timeout it shows, a sleep, a compiler that runs alone): one more example starts beside it
WAITING, WINDOW = 0.25, 0.25


@dataclass
class _Run:
    """One example's process, from its fork until its answer."""

    job: dict
    pid: int
    start: float
    cgroup: Path | None
    limit: Path | None  # the folder whose pids.max bounds its processes (its cgroup's, on cgroup v2)
    memory: Path | None  # the folder whose memory limit bounds it (its cgroup's, on cgroup v2)
    cloned: bool = False  # its process is its namespaces' first (namespaces.clone): it ends as init ends
    cpu: tuple[float, float] | None = None  # (when, CPU seconds of its cgroup then), the last look
    waiting: bool = False  # it used less than WAITING of a core over the WINDOW before that look
    killed: bool = False  # by its timeout
    returncode: int = 0
    seconds: float = 0.0
    until: float = 0.0  # when what it left running is killed
    orphans: list[int] = field(default_factory=list)  # subreaper: the worker's orphans when it ended
    left: list[str] = field(default_factory=list)  # namespaces: what its namespace's first process named


class Worker:
    def __init__(self, setup: dict[str, Any]) -> None:
        self.answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)  # what preloaded modules or the worker print goes to stderr, not into the answers
        self.linux = sandbox.linux_features()
        # A short path: an example's multiprocessing binds a Unix socket beneath its TMPDIR, and socket
        # paths end at 107 bytes (macOS's own TMPDIR, /var/folders/…/T/, leaves too little room)
        short = "/tmp" if os.access("/tmp", os.W_OK) else None
        self.scratch = tempfile.mkdtemp(prefix="mkx-", dir=short)
        self.sandbox = sandbox.prepare([Path(p) for p in setup["project"]])  # while still one thread
        if self.sandbox.namespaces is None:
            self.sandbox.headers = Path(self.scratch, "precompiled-headers")
            self.sandbox.headers.mkdir()
        self.store = Path(setup["headers"]) if setup.get("headers") else None  # headers.py's
        self.building: headers.Build | None = None  # the store's headers, being built beside the first examples
        self.inbox = b""
        self.running: dict[int, _Run] = {}  # pid: its run
        self.draining: list[_Run] = []  # ended; what they left running has until `until` to end
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that SIGCHLD writes to the wake-up fd
        signal.set_wakeup_fd(wake_w)

    def serve(self, preload: list[str]) -> None:
        for name in preload:
            importlib.import_module(name)
        preload_metadata()
        cuda = False
        if "torch" in sys.modules:
            cuda = sys.modules["torch"].cuda.is_available()  # NVML-based check: CUDA stays uninitialised
            if cuda:
                release_nvml()
        if self.store and self.sandbox.headers:
            found = headers.begin(self.store, Path(self.scratch), self.sandbox.headers)
            if isinstance(found, headers.Build):
                self.building = found
            else:
                self.sandbox.built = found
        # What the worker imported stays out of every collection: its pages stay shared with the children.
        # Frozen as it is: its imports leave a few hundred unreachable objects, and a full collection of
        # the hundreds of thousands it holds would add a tenth of a second to every build's start
        gc.freeze()
        cgroups = self.sandbox.cgroups
        # the folders of its limits in other hierarchies (cgroup v1's), which the pool removes if it kills the worker
        limits = {str(found.base) for found in (self.sandbox.limits, self.sandbox.memory_limits) if found}
        self.say({
            "ready": True, "cuda": cuda, "pid": os.getpid(), "scratch": self.scratch,
            "cgroup": str(cgroups.base) if cgroups else None, "limits": sorted(limits), **self.sandbox.facts(),
        })  # fmt: skip
        while (line := self.read_line()) is not None:
            batch = json.loads(line)
            options, fill = Options(**batch["options"]), bool(batch.get("fill"))
            self.run_batch(deque(batch["jobs"]), options, batch["timeout"], batch["parallel"], fill)
        self.exit()

    def read_line(self) -> str | None:
        """The next line of stdin; None at its end."""
        while b"\n" not in self.inbox:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                return None
            self.inbox += chunk
        line, _, self.inbox = self.inbox.partition(b"\n")
        return line.decode()

    def stdin_ended(self) -> bool:
        """Whether stdin has ended, without waiting; what arrived meanwhile is kept."""
        if not select.select([0], [], [], 0)[0]:
            return False
        chunk = os.read(0, 1 << 16)
        self.inbox += chunk
        return not chunk

    def run_batch(self, queue: deque, options: Options, timeout: float, parallel: int, fill: bool = False) -> None:
        """Run ``queue``'s examples, ``parallel`` at a time; with ``fill``, one more while one of them waits."""
        parallel = max(1, parallel)
        # in the order the engine sends them: the longest first, then those that start processes
        last_tick = time.monotonic()
        while queue or self.running or self.draining:
            self.check_headers()
            while (job := self._next(queue, parallel, extra=int(fill and self.waiting()))) is not None:
                self.start(job, options, timeout)
            self.reap()
            self.drain()
            now = time.monotonic()
            for run in self.running.values():
                if not run.killed and now - run.start > timeout + GRACE:
                    self.kill(run)  # the example's own subprocesses too
                    run.killed = True
            if now - last_tick >= TICK:
                self.say({"tick": True})
                last_tick = now
            if self.stdin_ended():  # the build has gone: end everything it started
                self.exit()
            deadlines = [r.start + timeout + GRACE - now for r in self.running.values() if not r.killed]
            looks = [WINDOW] if fill and queue else []  # whether a running example has begun to wait
            wait = max(0.0, min([TICK, *deadlines, *([0.02] if self.draining else []), *looks]))
            if (self.running or self.draining or self.building) and self._next(queue, parallel, take=False) is None:
                select.select([self.wake_r, 0], [], [], wait)
                with contextlib.suppress(BlockingIOError):
                    os.read(self.wake_r, 1024)
        self.end_orphans()

    def _next(self, queue: deque, parallel: int, *, extra: int = 0, take: bool = True) -> dict | None:
        """The first job of ``queue`` that can start now (``take``: taken out of it); None where none can, in
        the order the engine sent them; ``extra``: slots beyond ``parallel`` (one, while an example waits).
        While the store's headers are being built, the build takes a core, and an example whose source
        compiles (``compile(``) waits for them, rather than build its own."""
        if self.building is not None:
            parallel = max(1, parallel - 1)
        for job in queue:
            if self.building is not None and "compile(" in job["source"]:
                continue
            if self._slots(parallel) + extra < self._weight(job, parallel):
                return None
            if take:
                queue.remove(job)
            return job
        return None

    def check_headers(self) -> None:
        """Once the build of the store's headers has ended, show them to the examples that start after it
        (past its deadline it is killed: the examples then build the headers they need among themselves)."""
        build = self.building
        if build is None or self.sandbox.headers is None:
            return
        if build.status is None:
            with contextlib.suppress(ChildProcessError):
                pid, status = os.waitpid(build.pid, os.WNOHANG)
                if pid:
                    build.status = status
        if build.status is None and time.monotonic() > build.deadline:
            headers.kill(build)
        if build.status is not None:
            self.sandbox.built = headers.finish(build, self.sandbox.headers)
            self.building = None

    def waiting(self) -> bool:
        """Whether a running example waits: its cgroup's processes (those that ended too) used less than
        WAITING of a core over the last WINDOW. Unknown without a cgroup per example: none waits."""
        now, found = time.monotonic(), False
        for run in self.running.values():
            if run.cgroup is None:
                continue
            if run.cpu is None or now - run.cpu[0] >= WINDOW:
                used = processes.Cgroups.cpu(run.cgroup)
                if used is None:
                    continue
                if run.cpu is not None:
                    run.waiting = used - run.cpu[1] < WAITING * (now - run.cpu[0])
                run.cpu = (now, used)
            found = found or run.waiting
        return found

    def _own(self) -> set[int]:
        """The worker's children that are no example's leftovers: the examples' processes, the headers' build."""
        return set(self.running) | ({self.building.pid} if self.building else set())

    def _slots(self, parallel: int) -> int:
        return parallel - sum(self._weight(run.job, parallel) for run in self.running.values())

    @staticmethod
    def _weight(job: dict, parallel: int) -> int:
        """Slots a job takes: an example that starts processes or threads takes a second core, where
        that leaves one for the others (on 2 cores, making everything else wait measured slower)."""
        return 2 if job["alone"] and parallel > 2 else 1

    def start(self, job: dict, options: Options, timeout: float) -> None:
        started = time.monotonic()  # the clock every process shares: the child's times are compared with it
        folder = Path(self.scratch, str(job["id"]))
        (folder / "box").mkdir(parents=True)
        cgroups = self.sandbox.cgroups
        cgroup = cgroups.make(f"example-{job['id']}") if cgroups else None
        limits, name = self.sandbox.limits, f"example-{job['id']}"
        limit = limits.make(name, sandbox.MAX_PROCESSES) if limits else None  # in its cgroup, or beside it
        if limits is not None and limits.unified and cgroup != limit:  # in one cgroup v2 only: this one
            if cgroups is not None and cgroup is not None:
                cgroups.remove(cgroup)
            cgroup = limit
        # its memory limit: in that cgroup v2 (made in the same folder, by the same name), or in cgroup v1's
        memory, most = self.sandbox.memory_limits, sandbox.memory_limit(options)
        held = memory.make(name, most) if memory and most else None
        joined = [folder for folder in dict.fromkeys([cgroup, limit, held]) if folder is not None]
        pid, cloned = None, self.sandbox.namespaces is None and namespaces.can_clone()
        # A fork fewer, born in its cgroup v2 where it can be; where the kernel refuses, its own unshare says why
        for into in [*([cgroup] if cloned and cgroup is not None else []), *([None] if cloned else [])]:
            with contextlib.suppress(OSError):
                pid = namespaces.clone(into)
                joined = [folder for folder in joined if folder != into]  # it is in that one already
                break
        if pid is None:
            pid, cloned = os.fork(), False
        if pid == 0:
            self.child(job, options, timeout, folder, joined, started, cloned)
        self.running[pid] = _Run(job, pid, time.monotonic(), cgroup, limit, held, cloned)
        self.say({"id": job["id"], "pid": pid})

    def reap(self) -> None:
        ended = []
        while self.running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if (run := self.running.pop(pid, None)) is not None:  # else an orphan of an example, reaped as subreaper
                ended.append(self._ended(run, status))
            elif self.building is not None and pid == self.building.pid:
                self.building.status = status
        if ended and self.linux and not self.sandbox.cgroups:
            # An example whose process has ended since the loop above (a zombie now) has given us its
            # orphans too: the kernel re-parents them before the process becomes a zombie
            for run in [r for r in self.running.values() if processes.stat_fields(r.pid)[:1] == ["Z"]]:
                ended.append(self._ended(self.running.pop(run.pid), os.waitpid(run.pid, 0)[1]))
            # Re-parented to us when the example's process ended: when several ended at once, each is
            # named with all of them (a process cannot be told apart from its siblings then)
            claimed = {pid for run in self.draining for pid in run.orphans}
            found = [p for p in processes.orphans(os.getpid(), self._own()) if p not in claimed]
            for run in ended:
                run.orphans = found
        self.draining += ended

    def _ended(self, run: _Run, status: int) -> _Run:
        ended = time.monotonic()
        report = Path(self.scratch, str(run.job["id"]), "left.json")  # by the first process of its namespaces
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            answer = json.loads(report.read_text())
            ended, run.left = min(ended, float(answer["ended"])), [str(name) for name in answer["left"]]
        run.seconds = round(ended - run.start, 4)
        run.returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        if run.cloned:
            run.returncode = namespaces.exit_status(run.returncode)
        # what its namespace's first process named was given its time there, and has been killed
        run.until = time.monotonic() + (0.0 if run.left else processes.LEFTOVER)
        return run

    def left_by(self, run: _Run) -> list[str]:
        """What ``run``'s example left running, named; [] if nothing."""
        if run.left:
            return run.left
        if run.cgroup is not None:  # (a zombie stays a member until it is reaped: it is no longer running)
            return [processes.name(pid) for pid in processes.Cgroups.members(run.cgroup) if processes.alive(pid)]
        if self.linux:
            return [processes.name(pid) for pid in run.orphans if processes.alive(pid)]
        return ["processes in its process group"] if processes.group_alive(run.pid) else []

    def drain(self) -> None:
        """Answer for each ended example once what it left running has ended, or was killed."""
        now = time.monotonic()
        done = []  # what each has left is found before any is killed: examples that ended at once share it
        for run in list(self.draining):
            left = self.left_by(run)
            if not (left and now < run.until + _helpers_time(left) and not run.killed):
                done.append((run, left))
        for run, left in done:
            self.kill(run)
            self.draining.remove(run)
            memory = self.sandbox.memory_limits
            killed = memory.kills(run.memory) if memory and run.memory else 0  # at its memory limit
            if run.cgroup is not None and self.sandbox.cgroups:
                self.sandbox.cgroups.remove(run.cgroup)
            for other in dict.fromkeys(f for f in (run.limit, run.memory) if f is not None and f != run.cgroup):
                processes.Cgroups.kill(other)
                processes.Cgroups.remove(other)
            self.say({
                "id": run.job["id"], "returncode": run.returncode, "timed_out": run.killed,
                "seconds": run.seconds, "leftover": left, "oom": killed,
            })  # fmt: skip

    def kill(self, run: _Run) -> None:
        """Kill ``run``'s example and everything it started that can be found."""
        _kill_first(run)
        if run.cgroup is not None:
            processes.Cgroups.kill(run.cgroup)
        elif self.linux and run.orphans:
            for _ in range(50):  # what they started is orphaned in turn as they die: until nothing is left
                processes.kill_all(run.orphans)
                time.sleep(0.005)  # (the dead are reaped with the examples' processes, or at the batch's end)
                claimed = {pid for other in self.draining if other is not run for pid in other.orphans}
                new = [p for p in processes.orphans(os.getpid(), self._own()) if p not in claimed]
                if not new:
                    break
                run.orphans = new

    def end_orphans(self) -> None:
        """Kill every process left that an example started (Linux: we are their subreaper)."""
        for _ in range(50):
            left = processes.orphans(os.getpid(), self._own()) if self.linux else []
            if not left:
                break
            processes.kill_all(left)
            time.sleep(0.01)
            with contextlib.suppress(ChildProcessError):
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass

    def exit(self) -> None:
        for run in [*self.running.values(), *self.draining]:
            _kill_first(run)
        if self.building is not None:
            headers.kill(self.building)
            shutil.rmtree(self.building.work, ignore_errors=True)
        self.running.clear()
        if self.sandbox.cgroups:
            self.sandbox.cgroups.close()
        for limits in (self.sandbox.limits, self.sandbox.memory_limits):
            if limits:
                limits.close()
        self.end_orphans()
        left = scratch.remove(self.scratch)  # each example's folder went with it, or was named then
        if left.failed:
            print(f"mkdocs-examples: the worker's folder {self.scratch} was left: {left.failed}", file=sys.stderr)
        REAL_EXIT(0)  # no interpreter shutdown: torch's teardown costs about a second

    def child(
        self, job: dict, options: Options, timeout: float, folder: Path, cgroups: list[Path], started: float,
        cloned: bool,
    ) -> None:  # fmt: skip
        """In the forked child: enter the sandbox, run one example, its record and stack in ``folder``.
        ``started``: when the worker began to start it (its cgroups, then the fork); ``cloned``: forked by
        namespaces.clone, the first process of the example's namespaces."""
        code, faults = 70, None
        forked = time.monotonic()
        try:
            # A process group of its own, killed as one. Not the first process of the example's namespaces
            # (cloned): a group it led would be 1 there, and killpg(1) is kill(-1), every process but init;
            # the example's process leads a group of its own there (sandbox.isolate)
            if not cloned:
                os.setsid()
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # never write into the worker's pipes
                os.dup2(devnull, fd)
            # Opened before Landlock, in a folder the example cannot write to; not inherited by
            # what it runs (close-on-exec), and moved to a descriptor number it cannot guess
            flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC
            faults = _hidden(os.open(folder / "faults", flags | os.O_TRUNC, 0o600))
            record = _hidden(os.open(folder / "record.jsonl", flags | os.O_APPEND, 0o600))
            example = Example.from_source(job["path"], Path(job["file"]), job["source"], job["folder"])
            deadline = time.monotonic() + timeout + GRACE / 2  # what it left is named before the timeout
            sandbox.confine(
                self.sandbox, folder, options, cgroups=cgroups, deadline=deadline, keep=[faults, record], cloned=cloned,
                in_memory=True,
            )
            run_example(example, record, faults, options, timeout, clock=(started, forked, time.monotonic()))
            code = 0
        except BaseException:
            if faults is not None:
                os.write(faults, traceback.format_exc().encode())
        finally:
            REAL_EXIT(code)  # no interpreter shutdown: it would cost torch's teardown, per example

    def say(self, message: dict) -> None:
        try:
            self.answers.write(json.dumps(message) + "\n")
            self.answers.flush()
        except OSError:  # the build has gone
            self.exit()


def release_nvml() -> None:
    """Shut down NVML, which torch's NVML-based check started in the worker and leaves running.

    Every example forked from the worker would inherit it started, with descriptors the sandbox
    closes, and each NVML call there fails with error 17 ("OS call failed"): among them the one
    torch's allocator makes to say who holds the GPU's memory when it runs out, which then raises
    an internal assert instead of "CUDA out of memory". Shut down, NVML starts afresh in each example.
    """
    ctypes.CDLL("libnvidia-ml.so.1").nvmlShutdown()


def _kill_first(run: _Run) -> None:
    """SIGKILL to the worker's child for ``run``: its process group, or where it is the first process of
    the example's namespaces (cloned), that process, whose end the kernel makes the end of all in them."""
    if not run.cloned:
        processes.kill_group(run.pid)
    else:
        with contextlib.suppress(OSError):
            os.kill(run.pid, signal.SIGKILL)


def _hidden(fd: int) -> int:
    """``fd`` moved to a random descriptor number among the high ones, close-on-exec."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    top = min(soft if soft > 0 else 1024, 4096)
    if top <= 256:
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 128 + int.from_bytes(os.urandom(2), "big") % (top - 192))
    os.close(fd)
    return moved


def _helpers_time(left: list[str]) -> float:
    """The extra seconds processes left running get when each is a helper of processes.HELPERS; 0 otherwise."""
    helpers = [processes.helper_of(entry) for entry in left]
    times = [processes.HELPERS[h] if h else 0.0 for h in helpers]
    return min(times) - processes.LEFTOVER if times and all(times) else 0.0


if __name__ == "__main__":
    _setup = json.loads(sys.argv[1])
    Worker(_setup).serve(_setup["preload"])
