"""A preloaded worker that forks one child per example, and the parent's handle on it.

The worker (``python -m mkdocs_examples.pool '<json>'``) runs in a session of its own,
imports the heavy modules once, touches neither CUDA nor any thread pool, then waits for
batches on stdin. For each example of a batch it forks a child in a session of its own,
at most ``parallel`` at a time, and answers one JSON line per event on a pipe of its own
(whatever a preloaded module prints goes to stderr, never into the answers).

Nothing outlives the build: the worker ends when its stdin ends, which happens however the
build ends (Ctrl-C, ``kill -9``), and takes every example's process group with it; on Linux
it is also the subreaper of every process an example starts, so even one that escapes its
group by ``setsid`` is found and killed. An example that kills or stops the worker itself is
found by running the examples that were in flight once more, one at a time, and named.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mkdocs_examples import sandbox
from mkdocs_examples.cells import Example
from mkdocs_examples.results import CellResult, Failure, Result, parse_cell, parse_failure
from mkdocs_examples.runner import REAL_EXIT, Options, preload_metadata, run_example

GRACE = 1.0  # seconds after a timeout for faulthandler to write the stack before the kill
TICK = 0.5  # seconds between the worker's heartbeats while it runs a batch
HUNG = 15.0  # seconds without a heartbeat after which the worker counts as stopped


class PoolError(Exception):
    """The worker process could not start."""


class _WorkerLost(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Job:
    example: Example
    number: int
    pid: int | None = None
    started: float | None = None  # wall-clock time, for telling which example changed a file


@dataclass
class Timing:
    """When each example's process ran, by path: wall-clock start and end."""

    spans: dict[str, tuple[float, float]] = field(default_factory=dict)


class Pool:
    """The parent's handle on one worker process, started on first use and kept until closed."""

    def __init__(self, preload: list[str], protect: list[Path] | None = None) -> None:
        self.preload = preload
        self.protect = [str(p) for p in protect or []]
        self.info: dict[str, Any] = {}
        self.timing = Timing()
        self._proc: subprocess.Popen | None = None
        self._buffer = b""
        self._numbers = iter(range(1 << 62))

    def start(self) -> None:
        """Start the worker without waiting for it: it imports its modules while the build goes on."""
        if self._proc is not None and self._proc.poll() is None:
            return
        if not hasattr(os, "fork"):
            raise PoolError(
                "the examples engine forks a process per example, and Windows cannot fork: build the site "
                "in WSL (https://learn.microsoft.com/windows/wsl/), or set the plugin option `enabled: false` "
                "to build it without running the examples"
            )
        env = dict(os.environ, MPLBACKEND="Agg", PYTORCH_NVML_BASED_CUDA_CHECK="1")
        setup = json.dumps({"preload": self.preload, "protect": self.protect})
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs_examples.pool", setup],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, start_new_session=True,
        )  # fmt: skip
        self._buffer, self.info = b"", {}

    def ready(self) -> dict[str, Any]:
        """Wait for the worker's first line: what it found (CUDA, its scratch folder)."""
        self.start()
        if not self.info:
            try:
                self.info = self._answer(deadline=None)
            except _WorkerLost:
                assert self._proc
                code = self._proc.wait()
                self._proc = None
                raise PoolError(f"the example worker exited with code {code}; its error is printed above") from None
        return self.info

    def run(self, examples: list[Example], options: Options, *, timeout: float, parallel: int,
            alone: set[str] = frozenset()) -> Iterator[tuple[Example, Result]]:  # fmt: skip
        """Run ``examples``; yield each with its result as soon as it finishes.

        ``alone``: paths of examples that start processes or threads of their own; each of
        those runs with a core to itself.
        """
        pending = deque(examples)
        suspects: deque[Example] = deque()  # in flight when the worker died: rerun one at a time
        losses = 0
        while pending or suspects:
            batch = [suspects.popleft()] if suspects else [pending.popleft() for _ in range(len(pending))]
            jobs = {n: _Job(e, n) for e, n in zip(batch, self._numbers, strict=False)}
            try:
                yield from self._batch(jobs, options, timeout, 1 if len(batch) == 1 else parallel, alone)
            except _WorkerLost as lost:
                flying = [job for job in jobs.values() if job.pid is not None]
                losses = 0 if flying else losses + 1
                if losses == 3:
                    raise PoolError(f"the example worker was lost three times before it ran anything: {lost}") from None
                self._discard(flying)
                if len(flying) == 1:
                    yield flying[0].example, _lost(lost.reason)
                else:
                    suspects.extend(job.example for job in flying)
                pending.extendleft(reversed([job.example for job in jobs.values() if job.pid is None]))

    def _batch(self, jobs: dict[int, _Job], options: Options, timeout: float, parallel: int,
               alone: set[str]) -> Iterator[tuple[Example, Result]]:  # fmt: skip
        self.ready()
        assert self._proc and self._proc.stdin
        scratch = Path(self.info["scratch"])
        message = {
            "options": asdict(options),
            "timeout": timeout,
            "parallel": parallel,
            "jobs": [
                {"id": n, "path": j.example.path, "file": str(j.example.file), "source": j.example.source,
                 "folder": j.example.folder, "alone": j.example.path in alone}
                for n, j in jobs.items()
            ],
        }  # fmt: skip
        finished = False
        try:
            self._proc.stdin.write(json.dumps(message).encode() + b"\n")
            self._proc.stdin.flush()
        except OSError:
            raise _WorkerLost("the worker had ended before the batch was sent") from None
        try:
            left = len(jobs)
            while left:
                answer = self._answer(deadline=time.monotonic() + HUNG)
                job = jobs[answer["id"]] if "id" in answer else None
                if job is None:
                    continue  # a heartbeat
                if "pid" in answer:
                    job.pid, job.started = answer["pid"], time.time()
                    continue
                left -= 1
                self.timing.spans[job.example.path] = (job.started or time.time(), time.time())
                files = [scratch / f"{job.number}.{suffix}" for suffix in ("jsonl", "faults")]
                result = _collect(job.example, *files, answer, timeout)
                for file in files:
                    file.unlink(missing_ok=True)
                job.pid = None
                yield job.example, result
            finished = True
        finally:
            if not finished:  # the consumer stopped early, or the worker was lost: never reuse it
                self._discard([job for job in jobs.values() if job.pid is not None])

    def _answer(self, deadline: float | None) -> dict[str, Any]:
        """The worker's next line; _WorkerLost when it ends, or says nothing until ``deadline``."""
        assert self._proc and self._proc.stdout
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise _WorkerLost("the worker stopped answering (was it stopped with SIGSTOP?)")
            readable, _, _ = select.select([fd], [], [], wait)
            if readable:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    code = self._proc.wait()
                    how = f"killed by {signal_name(-code)}" if code < 0 else f"exited with code {code}"
                    raise _WorkerLost(f"the worker {how}")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def _discard(self, flying: list[_Job]) -> None:
        """Kill the worker and the examples it was running; the next batch starts a new one."""
        for job in flying:
            _kill_group(job.pid)
        scratch = self.info.get("scratch")
        if self._proc is not None:
            _kill_group(self._proc.pid)
            self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout):
                with contextlib.suppress(OSError):
                    stream and stream.close()
            self._proc = None
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        self.info = {}

    def close(self) -> None:
        if self._proc is None:
            return
        with contextlib.suppress(OSError):
            self._proc.stdin and self._proc.stdin.close()  # the worker cleans up and exits at end of input
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._discard([])


def _lost(reason: str) -> Result:
    detail = (
        f"{reason} while this example ran: an example must not kill, stop or signal the process that runs it "
        "(its parent) or that process's group"
    )
    return Result(failure=Failure("worker", detail=detail))


def _collect(example: Example, record: Path, faults: Path, done: dict, timeout: float) -> Result:
    """Assemble a result from what the child recorded and how it ended."""
    cells: list[CellResult] = []
    env: dict[str, str] = {}
    depends: dict[str, str] = {}
    failure: Failure | None = None
    running, finished = None, False
    text = record.read_text(encoding="utf-8", errors="replace") if record.exists() else ""
    try:
        for line in text.splitlines():
            event = json.loads(line)
            kind = event.pop("event")
            if kind == "env":
                env = event["env"]
            elif kind == "start":
                running = event["cell"]
            elif kind == "cell":
                cells.append(parse_cell(event))
                running = None
            elif kind == "failure":
                failure = parse_failure(event)
            elif kind == "depends":
                depends = event["depends"]
            elif kind == "end":
                finished = True
    except (ValueError, KeyError, TypeError):
        finished = False  # a line cut short by a crash, or written by the example itself
    timed_out = done["timed_out"] or done["seconds"] >= timeout
    if finished and not timed_out:
        return Result(tuple(cells), env, failure, done["seconds"], depends)
    stack = faults.read_text(errors="replace") if faults.exists() else ""
    cell = example.cells[running] if running is not None and running < len(example.cells) else None
    found = re.findall(rf'File "{re.escape(example.display)}", line (\d+)', stack)
    line = int(found[0]) if found else (cell.lineno if cell else None)  # faulthandler: innermost first
    code = done["returncode"]
    kind = "timeout" if timed_out else "crash" if code < 0 else "early-exit"
    failure = Failure(kind, cell.index if cell else None, line, stack.strip() or None, code, timeout)
    return Result(tuple(cells), env, failure, done["seconds"], depends)


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _kill_group(pid: int | None) -> None:
    if pid:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


# --- the worker process ------------------------------------------------------------


class _Worker:
    def __init__(self, setup: dict[str, Any]) -> None:
        self.answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)  # what preloaded modules or the worker print goes to stderr, not into the answers
        self.protect: list[str] = setup["protect"]
        self.linux = sandbox.linux_features()
        if self.linux:
            sandbox.become_subreaper()  # orphans of examples become our children, so we can end them
        self.scratch = tempfile.mkdtemp(prefix="mkdocs-examples-")
        os.environ["TMPDIR"] = self.scratch  # examples' temporary files go where the worker cleans up
        tempfile.tempdir = self.scratch
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
                pid = os.fork()
                if pid == 0:
                    self.child(job, options, timeout)
                self.running[pid] = (job, time.monotonic(), False)
                self.say({"id": job["id"], "pid": pid})
            self.reap()
            now = time.monotonic()
            for pid, (job, start, killed) in list(self.running.items()):
                if not killed and now - start > timeout + GRACE:
                    _kill_group(pid)  # the example's own subprocesses too
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
        return min(2, parallel) if job["alone"] else 1

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
            _kill_group(pid)  # what the example left running in its group
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
            _kill_group(pid)
        self.running.clear()
        self.end_orphans()
        shutil.rmtree(self.scratch, ignore_errors=True)
        REAL_EXIT(0)  # no interpreter shutdown: torch's teardown costs about a second

    def child(self, job: dict, options: Options, timeout: float) -> None:
        code = 70
        faults = Path(self.scratch, f"{job['id']}.faults")
        try:
            os.setsid()  # a process group of its own, killed as one
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            if self.linux:
                sandbox.die_with_parent()
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # never write into the worker's pipes
                os.dup2(devnull, fd)
            self.answers = None  # type: ignore[assignment]
            example = Example.from_source(job["path"], Path(job["file"]), job["source"], job["folder"])
            scratch = Path(self.scratch, str(job["id"]))
            scratch.mkdir()
            os.environ["TMPDIR"] = tempfile.tempdir = str(scratch)
            if self.linux:
                sandbox.restrict(self.protect, allow=[self.scratch])
            run_example(example, Path(self.scratch, f"{job['id']}.jsonl"), faults, options, timeout)
            shutil.rmtree(scratch, ignore_errors=True)
            code = 0
        except BaseException:
            with open(faults, "a") as file:
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
    _Worker(_setup).serve(_setup["preload"])
