"""The worker: imports the heavy modules once, then forks one child per example.

``python -m mkdocs_examples.execute.child.worker '<json>'`` runs in a session of its own, imports the
preloaded modules, touches neither CUDA nor any thread pool, then waits for batches on
stdin. For each example of a batch it forks a child in a session of its own, at most
``parallel`` at a time, and answers one JSON line per event on a pipe of its own (what a
preloaded module prints goes to stderr, never into the answers).

Nothing outlives the build: the worker ends when its stdin ends, which happens however the
build ends (Ctrl-C, ``kill -9``), and takes every example's process group with it; on Linux
it is also the subreaper of every process an example starts, so one that escapes its group
by ``setsid`` is found and killed too.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import deque
from pathlib import Path
from typing import Any

from mkdocs_examples.execute.child import sandbox
from mkdocs_examples.execute.child.runner import REAL_EXIT, preload_metadata, run_example
from mkdocs_examples.execute.child.sandbox import kill_group
from mkdocs_examples.results import Options
from mkdocs_examples.source.cells import Example

GRACE = 1.0  # seconds after a timeout for faulthandler to write the stack before the kill
TICK = 0.5  # seconds between heartbeats while a batch runs


class Worker:
    def __init__(self, setup: dict[str, Any]) -> None:
        self.answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)  # what preloaded modules or the worker print goes to stderr, not into the answers
        self.protect: list[str] = setup["protect"]
        self.linux = sandbox.linux_features()
        if self.linux:
            sandbox.become_subreaper()  # orphans of examples become our children, so we can end them
        # A short path: an example's multiprocessing binds a Unix socket beneath its TMPDIR, and socket
        # paths end at 107 bytes (macOS's own TMPDIR, /var/folders/…/T/, leaves too little room)
        short = "/tmp" if os.access("/tmp", os.W_OK) else None
        self.scratch = tempfile.mkdtemp(prefix="mkx-", dir=short)
        self.inbox = b""
        self.running: dict[int, tuple[dict, float, bool]] = {}  # pid: (job, start, killed)
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
        self.say({"ready": True, "cuda": cuda, "pid": os.getpid(), "scratch": self.scratch})
        while (line := self.read_line()) is not None:
            batch = json.loads(line)
            self.run_batch(deque(batch["jobs"]), Options(**batch["options"]), batch["timeout"], batch["parallel"])
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

    def run_batch(self, queue: deque, options: Options, timeout: float, parallel: int) -> None:
        parallel = max(1, parallel)
        queue = deque(sorted(queue, key=lambda job: not job["alone"]))  # the heavy ones first
        last_tick = time.monotonic()
        while queue or self.running:
            while queue and self._slots(parallel) >= self._weight(queue[0], parallel):
                job = queue.popleft()
                folder = Path(self.scratch, str(job["id"]))
                folder.mkdir()
                pid = os.fork()
                if pid == 0:
                    self.child(job, options, timeout, folder)
                self.running[pid] = (job, time.monotonic(), False)
                self.say({"id": job["id"], "pid": pid})
            self.reap()
            now = time.monotonic()
            for pid, (job, start, killed) in list(self.running.items()):
                if not killed and now - start > timeout + GRACE:
                    kill_group(pid)  # the example's own subprocesses too
                    self.running[pid] = (job, start, True)
            if now - last_tick >= TICK:
                self.say({"tick": True})
                last_tick = now
            if self.stdin_ended():  # the build has gone: end everything it started
                self.exit()
            deadlines = [start + timeout + GRACE - now for _, start, killed in self.running.values() if not killed]
            wait = max(0.0, min([TICK, *deadlines]))
            if self.running and not (queue and self._slots(parallel) >= self._weight(queue[0], parallel)):
                select.select([self.wake_r, 0], [], [], wait)
                with contextlib.suppress(BlockingIOError):
                    os.read(self.wake_r, 1024)
        self.end_orphans()

    def _slots(self, parallel: int) -> int:
        return parallel - sum(self._weight(job, parallel) for job, _, _ in self.running.values())

    @staticmethod
    def _weight(job: dict, parallel: int) -> int:
        """Slots a job takes: an example that starts processes or threads takes a second core, where
        that leaves one for the others (on 2 cores, making everything else wait measured slower)."""
        return 2 if job["alone"] and parallel > 2 else 1

    def reap(self) -> None:
        while self.running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid not in self.running:
                continue  # an orphan of an example, reaped as subreaper
            job, start, killed = self.running.pop(pid)
            kill_group(pid)  # what the example left running in its group
            seconds = round(time.monotonic() - start, 4)
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            self.say({"id": job["id"], "returncode": code, "timed_out": killed, "seconds": seconds})

    def end_orphans(self) -> None:
        """Kill every process left that an example started (Linux: we are their subreaper)."""
        for _ in range(50):
            children = sandbox.children(os.getpid()) if self.linux else []
            if not children:
                break
            for pid in children:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
            with contextlib.suppress(ChildProcessError):
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass

    def exit(self) -> None:
        for pid in self.running:
            kill_group(pid)
        self.running.clear()
        self.end_orphans()
        shutil.rmtree(self.scratch, ignore_errors=True)
        REAL_EXIT(0)  # no interpreter shutdown: torch's teardown costs about a second

    def child(self, job: dict, options: Options, timeout: float, folder: Path) -> None:
        """In the forked child: run one example, its record and temporary files in ``folder``."""
        code = 70
        try:
            os.setsid()  # a process group of its own, killed as one
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            if self.linux:
                sandbox.die_with_parent()
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # never write into the worker's pipes
                os.dup2(devnull, fd)
            sandbox.clean_environment()  # no tokens or keys of whoever builds: an allow-list
            example = Example.from_source(job["path"], Path(job["file"]), job["source"], job["folder"])
            (folder / "tmp").mkdir()
            os.environ["TMPDIR"] = tempfile.tempdir = str(folder / "tmp")
            if self.linux:  # writes only in its own folder here: not into other examples' records
                sandbox.restrict([*self.protect, self.scratch], allow=[str(folder)])
            run_example(example, folder / "record.jsonl", folder / "faults", options, timeout)
            code = 0
        except BaseException:
            with open(folder / "faults", "a") as file:
                traceback.print_exc(file=file)
        finally:
            REAL_EXIT(code)  # no interpreter shutdown: it would cost torch's teardown, per example

    def say(self, message: dict) -> None:
        try:
            self.answers.write(json.dumps(message) + "\n")
            self.answers.flush()
        except OSError:  # the build has gone
            self.exit()


if __name__ == "__main__":
    _setup = json.loads(sys.argv[1])
    Worker(_setup).serve(_setup["preload"])
