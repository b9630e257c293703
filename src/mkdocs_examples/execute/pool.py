"""The build's handle on the worker process (:mod:`mkdocs_examples.execute.child.worker`) that runs examples.

The pool starts the worker, sends it batches, turns each example's record file and exit
status into a :class:`Result`, and notices when the worker is lost: killed, stopped
(no heartbeat), or ended. An example that did that is found by running the examples that
were in flight once more, one at a time, and is named in its failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Collection, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mkdocs_examples.execute.child.sandbox import kill_group
from mkdocs_examples.results import RESULT, CellResult, Failure, FailureKind, Options, Result
from mkdocs_examples.schema import JSONError, loads, validate
from mkdocs_examples.source.cells import Example

HUNG = 15.0  # seconds without a heartbeat (the worker sends one every 0.5 s) before it counts as stopped


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
    pid: int | None = None  # while its process runs
    started: float = 0.0  # wall-clock time, for telling which example changed a file
    done: bool = False


class Pool:
    """The parent's handle on one worker process, started on first use and kept until closed."""

    def __init__(self, preload: list[str], protect: list[Path] | None = None) -> None:
        self.preload = preload
        self.protect = [str(p) for p in protect or []]
        self.info: dict[str, Any] = {}
        self.spans: dict[str, tuple[float, float]] = {}  # path: when its process ran (wall clock)
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
            [sys.executable, "-m", "mkdocs_examples.execute.child.worker", setup],
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
            alone: Collection[str] = frozenset()) -> Iterator[tuple[Example, Result]]:  # fmt: skip
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
                pending.extendleft(reversed([j.example for j in jobs.values() if j.pid is None and not j.done]))

    def _batch(self, jobs: dict[int, _Job], options: Options, timeout: float, parallel: int,
               alone: Collection[str]) -> Iterator[tuple[Example, Result]]:  # fmt: skip
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
                self.spans[job.example.path] = (job.started, time.time())
                folder = scratch / str(job.number)  # the child's own: record, faults, temporary files
                result = _collect(job.example, folder / "record.jsonl", folder / "faults", answer, timeout)
                shutil.rmtree(folder, ignore_errors=True)
                job.pid, job.done = None, True
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
            kill_group(job.pid)
        scratch = self.info.get("scratch")
        if self._proc is not None:
            kill_group(self._proc.pid)
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
    unreadable = None  # the first line that is not an event of the runner's, and why
    number, text_line = 0, ""
    try:
        for number, text_line in enumerate(text.splitlines(), 1):  # noqa: B007 (named in the error below)
            event = loads(text_line)
            name = event.pop("event", None) if isinstance(event, dict) else None
            if name == "env":
                env = dict(validate(event.get("env"), f"{RESULT}#/$defs/env"))
            elif name == "start":
                running = int(validate(event.get("cell"), f"{RESULT}#/$defs/index"))
            elif name == "cell":
                cells.append(CellResult.from_json(event))
                running = None
            elif name == "failure":
                failure = Failure.from_json(event)
            elif name == "depends":
                depends = dict(validate(event.get("depends"), f"{RESULT}#/$defs/depends"))
            elif name == "end":
                finished = True
            else:
                raise JSONError("not an event of the engine's runner")
    except JSONError as error:
        finished = False  # a line cut short by a crash, or written by the example itself
        unreadable = f"line {number} of its record ({text_line[:200]!r}): {error}"
    timed_out = done["timed_out"] or done["seconds"] >= timeout
    if unreadable and done["returncode"] == 0 and not timed_out:  # not a crash: say what could not be read
        return Result(tuple(cells), env, Failure("record", detail=unreadable), done["seconds"], depends)
    if finished and not timed_out:
        return Result(tuple(cells), env, failure, done["seconds"], depends)
    stack = faults.read_text(errors="replace") if faults.exists() else ""
    cell = example.cells[running] if running is not None and running < len(example.cells) else None
    found = re.findall(rf'File "{re.escape(example.display)}", line (\d+)', stack)
    line = int(found[0]) if found else (cell.lineno if cell else None)  # faulthandler: innermost first
    code = done["returncode"]
    kind: FailureKind = "timeout" if timed_out else "crash" if code < 0 else "early-exit"
    failure = Failure(kind, cell.index if cell else None, line, stack.strip() or None, code, timeout)
    return Result(tuple(cells), env, failure, done["seconds"], depends)


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
