"""The build's handle on the worker process (:mod:`mkdocs_examples.execute.child.worker`) that runs examples.

The pool starts the worker, sends it batches, turns each example's record file and exit
status into a :class:`Result` (:mod:`.verdict`), and notices when the worker is lost: killed,
stopped (no heartbeat), ended, or saying what a worker would not say. It believes only answers
that fit what it asked: ids of examples in flight, each started and ended once, the process of
an example only if it is a child of the worker, and no batch outlives its examples' timeouts,
heartbeats or not. An example that lost the worker is found by running the examples that were
in flight once more, one at a time, and is named in its failure; if none does it again, all
of them fail.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Collection, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from mkdocs_examples.execute.child import processes
from mkdocs_examples.execute.child import scratch as folders
from mkdocs_examples.execute.child.mounts import ENGINE_FILES
from mkdocs_examples.execute.child.processes import Cgroups, kill_group
from mkdocs_examples.execute.verdict import collect, full
from mkdocs_examples.results import Failure, Options, Result
from mkdocs_examples.source.cells import Example

# Where the seconds of an example's run go beyond its cells' own (Result.phases, for `make bench`):
PHASES = {
    "wait": "for a free slot of the worker, from when the batch was sent",
    "fork": "the worker making its cgroups, and the fork",
    "sandbox": "entering the sandbox: namespaces, mounts, limits, Landlock, closing descriptors",
    "runner": "around its cells: capturing, cleaning and recording their output, rendering figures",
    "exit": "from its last record line until the pool has its end: exit, reaping, what it left running",
    "collect": "the pool reading and checking its record",
    "cpu": "not a phase: CPU seconds of its process and of those it waited for, to compare on a busy machine",
}
HUNG = 15.0  # seconds without a heartbeat (the worker sends one every 0.5 s) before it counts as stopped
SLACK = 8.0  # seconds past an example's timeout before the pool stops waiting for the worker to end it


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
    deadline: float = 0.0  # monotonic: the worker must have ended it by then
    done: bool = False


@dataclass
class _Loss:
    """The worker was lost with several examples in flight: they run again one at a time."""

    reason: str
    suspects: list[str]
    left: int
    found: bool = False  # one of them lost it again
    held: list[tuple[Example, Result]] = field(default_factory=list)  # results of those that did not


class Pool:
    """The parent's handle on one worker process, started on first use and kept until closed."""

    def __init__(self, preload: list[str], project: list[Path] | None = None, headers: Path | None = None) -> None:
        self.preload = preload
        self.project = [str(p) for p in project or []]  # folders examples may read
        self.headers = headers  # where the worker keeps inductor's precompiled headers (child/headers.py)
        self.info: dict[str, Any] = {}
        self.sandbox: dict[str, Any] = {}  # what confines examples, as the last worker found it (kept after close)
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
        env = dict(os.environ, MPLBACKEND="Agg", PYTORCH_NVML_BASED_CUDA_CHECK="1", GLIBC_TUNABLES=_tunables())
        setup = json.dumps({"preload": self.preload, "project": self.project,
                            "headers": str(self.headers) if self.headers else None})  # fmt: skip
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs_examples.execute.child.worker", setup],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, start_new_session=True,
        )  # fmt: skip
        self._buffer, self.info = b"", {}

    def ready(self) -> dict[str, Any]:
        """Wait for the worker's first line: what it found (CUDA, its scratch folder, the sandbox)."""
        self.start()
        if not self.info:
            assert self._proc
            try:
                info = self._answer(None, "")
            except _WorkerLost as lost:
                code = self._proc.poll()
                self._discard([])
                if code is None:
                    raise PoolError(f"the example worker did not start: {lost.reason}") from None
                raise PoolError(f"the example worker exited with code {code}; its error is printed above") from None
            if info.get("ready") is not True or not isinstance(info.get("scratch"), str):
                self._discard([])
                raise PoolError(f"the example worker did not start: its first line was {info!r}")
            self.info = info
            self.sandbox = {key: info.get(key) for key in ("landlock", "network", "processes", "missing", "most")}
        return self.info

    def run(self, examples: list[Example], options: Options, *, timeout: float, parallel: int,
            alone: Collection[str] = frozenset(), fill: bool = False) -> Iterator[tuple[Example, Result]]:  # fmt: skip
        """Run ``examples``; yield each with its result as soon as it finishes.

        ``alone``: paths of examples that start processes or threads of their own; each of
        those runs with a core to itself. ``fill``: ``parallel`` counts cores, and one example more
        starts while a running one waits (a timeout it shows, a compiler that runs alone), leaving
        its core idle (worker.WAITING).
        """
        pending = deque(examples)
        suspects: deque[tuple[Example, _Loss]] = deque()  # in flight when the worker was lost
        losses = 0
        while pending or suspects:
            loss = None
            if suspects:
                example, loss = suspects.popleft()
                batch = [example]
            else:
                batch = [pending.popleft() for _ in range(len(pending))]
            jobs = {n: _Job(e, n) for e, n in zip(batch, self._numbers, strict=False)}
            try:
                at_once = 1 if len(batch) == 1 else parallel
                for example, result in self._batch(jobs, options, timeout, at_once, alone, fill):
                    if loss is None or loss.found:
                        yield example, result
                    else:
                        loss.held.append((example, result))
            except _WorkerLost as lost:
                flying = [job for job in jobs.values() if job.pid is not None and not job.done]
                losses = 0 if flying else losses + 1
                if losses == 3:
                    raise PoolError(f"the example worker was lost three times before it ran anything: {lost}") from None
                self._discard(flying)
                if loss is not None and not flying:  # lost before the suspect started: it runs again
                    suspects.appendleft((batch[0], loss))
                    continue
                if loss is not None:  # a suspect, alone, lost it again: it did it
                    loss.found = True
                    yield flying[0].example, _lost(lost.reason)
                    yield from loss.held
                    loss.held.clear()
                elif len(flying) == 1:
                    yield flying[0].example, _lost(lost.reason)
                elif flying:
                    new = _Loss(lost.reason, sorted(j.example.path for j in flying), len(flying))
                    suspects.extend((job.example, new) for job in flying)
                pending.extendleft(reversed([j.example for j in jobs.values() if j.pid is None and not j.done]))
            if loss is not None:
                loss.left -= 1
                if loss.left == 0 and not loss.found:  # none did it again: each of them may have
                    for example, _ in loss.held:
                        yield example, _unfound(loss, example.path)

    def _batch(self, jobs: dict[int, _Job], options: Options, timeout: float, parallel: int,
               alone: Collection[str], fill: bool = False) -> Iterator[tuple[Example, Result]]:  # fmt: skip
        self.ready()
        assert self._proc and self._proc.stdin
        scratch = Path(self.info["scratch"])
        message = {
            "options": asdict(options),
            "timeout": timeout,
            "parallel": parallel,
            "fill": fill,
            "jobs": [
                {"id": n, "path": j.example.path, "file": str(j.example.file), "source": j.example.source,
                 "folder": j.example.folder, "alone": j.example.path in alone}
                for n, j in jobs.items()
            ],
        }  # fmt: skip
        finished = False
        sent = time.monotonic()
        try:
            self._proc.stdin.write(json.dumps(message).encode() + b"\n")
            self._proc.stdin.flush()
        except OSError:
            raise _WorkerLost("the worker had ended before the batch was sent") from None
        # However it answers, the worker has no longer than this: every example one after the other
        end = time.monotonic() + HUNG + len(jobs) * (timeout + SLACK)
        try:
            left = len(jobs)
            while left:
                flying = [j for j in jobs.values() if j.pid is not None and not j.done]
                deadline, why = min([
                    (time.monotonic() + HUNG, "the worker stopped answering (was it stopped with SIGSTOP?)"),
                    (end, f"the worker did not end its batch within {len(jobs)} times the timeout"),
                    *((j.deadline, f"the worker did not end {j.example.path} within its timeout") for j in flying),
                ])  # fmt: skip
                answer = self._answer(deadline, why)
                if answer == {"tick": True}:
                    continue
                job = self._job(jobs, answer)
                if "pid" in answer:
                    job.pid, job.started = answer["pid"], time.time()
                    job.deadline = time.monotonic() + timeout + SLACK
                    continue
                left -= 1
                self.spans[job.example.path] = (job.started, time.time())
                folder = scratch / str(job.number)  # the child's own: record, faults, temporary files
                ended = time.monotonic()
                result = collect(job.example, folder / "record.jsonl", folder / "faults", answer, timeout, options)
                result = _timed(result, sent, ended)
                checked = "namespaces" in (self.sandbox.get("missing") or {})  # its folder was on this disk
                result = _removed(result, folder, options, checked)
                job.pid, job.done = None, True
                yield job.example, result
            finished = True
        finally:
            if not finished:  # the consumer stopped early, or the worker was lost: never reuse it
                self._discard([job for job in jobs.values() if job.pid is not None])

    def _job(self, jobs: dict[int, _Job], answer: dict[str, Any]) -> _Job:
        """The job ``answer`` is about, if it is one the worker may answer about now; else the worker is lost."""
        number = answer.get("id")
        job = jobs.get(number) if isinstance(number, int) and not isinstance(number, bool) else None
        started = set(answer) == {"id", "pid"}
        ended = set(answer) == {"id", "returncode", "timed_out", "seconds", "leftover", "oom"}
        why = None
        if job is None or job.done:
            why = "an example that is not in flight"
        elif started and (job.pid is not None or not self._plausible(answer["pid"])):
            why = "a process that is not an example's (not a child of the worker), or a second one"
        elif ended and (job.pid is None or not _ending(answer)):
            why = "the end of an example that had not started, or an end of the wrong shape"
        elif not (started or ended):
            why = "nothing the pool asked"
        if why:
            worker = self._proc.pid if self._proc else None
            raise _WorkerLost(f"the worker (pid {worker}) sent an answer about {why}: {json.dumps(answer)[:200]}")
        assert job is not None
        return job

    def _plausible(self, pid: Any) -> bool:
        """Whether ``pid`` can be the process of an example: a child of the worker (Linux), or at
        least not the worker, the build or init (elsewhere). One that has ended already is harmless."""
        worker = self._proc.pid if self._proc else None
        if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 1 or pid in (worker, os.getpid()):
            return False
        if sys.platform == "linux":
            return processes.parent(pid) in (None, worker)
        return True

    def _answer(self, deadline: float | None, why: str) -> dict[str, Any]:
        """The worker's next line, an object; _WorkerLost when it ends, says nothing until ``deadline``
        (``why`` says what that means), or says something that is not an object."""
        assert self._proc and self._proc.stdout
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise _WorkerLost(why)
            readable, _, _ = select.select([fd], [], [], wait)
            if readable:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    code = self._proc.wait()
                    how = f"killed by {signal_name(-code)}" if code < 0 else f"exited with code {code}"
                    raise _WorkerLost(f"the worker {how}")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise _WorkerLost(f"the worker (pid {self._proc.pid}) sent a line that is not an answer: {line[:200]!r}")
        return answer

    def _discard(self, flying: list[_Job]) -> None:
        """Kill the worker and the examples it was running; the next batch starts a new one."""
        worker = self._proc.pid if self._proc else None
        for job in flying:
            if job.pid and worker:
                _end_example(job.pid, worker)
        scratch, cgroup = self.info.get("scratch"), self.info.get("cgroup")
        if self._proc is not None:
            kill_group(self._proc.pid)
            self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout):
                with contextlib.suppress(OSError):
                    stream and stream.close()
            self._proc = None
        limits = self.info.get("limits")
        for folder in [cgroup, *(limits if isinstance(limits, list) else [])]:  # its own, none other
            if isinstance(folder, str) and Path(folder).name == f"mkdocs-examples-{worker}" and Path(folder).is_dir():
                Cgroups(Path(folder)).close()  # what its examples started, wherever it went
        if isinstance(scratch, str) and Path(scratch).name.startswith("mkx-"):
            folders.remove(scratch)  # what could not be removed was named with its example
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


def _tunables() -> str:
    """The worker's GLIBC_TUNABLES: the build's, with malloc's heap in huge pages (glibc 2.35+; others
    ignore it) unless the build chose otherwise. Each example's process is a copy of the worker, twice
    (its namespaces' first process, then its own): fork copies one page-table entry per page of the
    worker's memory, about 200 MB once torch is imported, and exit frees them. With half of it in 2 MiB
    pages, a fork and an exit of the worker took 5.3 ms, against 12 to 16 ms in 4 KiB pages."""
    own = os.environ.get("GLIBC_TUNABLES", "")
    if "glibc.malloc.hugetlb=" in own:
        return own
    return ":".join(filter(None, [own, "glibc.malloc.hugetlb=1"]))


def _end_example(pid: int, worker: int) -> None:
    """Kill the process group of an example's process ``pid``, if it still is one: a child of the
    worker (Linux), or elsewhere the leader of a group that is neither the worker's nor the build's."""
    if sys.platform == "linux":
        if processes.parent(pid) == worker:
            kill_group(pid)
        return
    with contextlib.suppress(OSError):
        if os.getpgid(pid) == pid and pid not in (os.getpgid(worker), os.getpgrp()):
            kill_group(pid)


def _ending(answer: dict[str, Any]) -> bool:
    """Whether ``answer`` has the shape of an example's end."""
    number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)  # noqa: E731
    whole = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    leftover = answer["leftover"]
    return (
        whole(answer["returncode"]) and whole(answer["oom"]) and answer["oom"] >= 0
        and isinstance(answer["timed_out"], bool) and number(answer["seconds"])
        and isinstance(leftover, list) and all(isinstance(item, str) for item in leftover)
    )  # fmt: skip


def _timed(result: Result, sent: float, ended: float) -> Result:
    """``result`` with its PHASES, from the times its record gives (none where it gives none)."""
    clock = result.phases
    if not {"started", "ended", "fork", "sandbox", "runner", "cpu"} <= set(clock):
        return replace(result, phases={})
    phases = {
        "wait": clock["started"] - sent, "fork": clock["fork"], "sandbox": clock["sandbox"],
        "runner": clock["runner"], "exit": ended - clock["ended"], "collect": time.monotonic() - ended,
        "cpu": clock["cpu"],
    }  # fmt: skip
    return replace(result, phases={key: round(value, 4) for key, value in phases.items()})


def _removed(result: Result, folder: Path, options: Options, checked: bool) -> Result:
    """Remove the example's ``folder``; ``result``, failed where that could not be done (it is named, and the
    build goes on), or, where ``checked`` (no folder of its own in memory, whose size the kernel bounds), where
    its own folder held more than the options allow when it ended."""
    box, removed = folders.remove(folder / "box"), folders.remove(folder)
    if result.failure is not None:
        return result
    if box.failed or removed.failed:
        detail = (
            f"the folder it wrote in could not be removed after it ended ({box.failed or removed.failed}), and is "
            f"left at {folder}: {full(options)}"
        )
        return replace(result, failure=Failure("leftover", detail=detail))
    if checked and ((options.max_files and box.entries > options.max_files + ENGINE_FILES)
                    or (options.max_folder_size and box.size >> 20 > options.max_folder_size)):  # fmt: skip
        detail = (
            f"its own folder held {box.entries} files and folders of {box.size >> 20} MiB when it ended (the "
            f"engine's own few included): {full(options)}"
        )
        return replace(result, failure=Failure("limit", detail=detail))
    return result


def _lost(reason: str) -> Result:
    detail = (
        f"{reason} while this example ran: an example must not kill, stop or signal the process that runs it "
        "(its parent) or that process's group, nor write to its pipes"
    )
    return Result(failure=Failure("worker", detail=detail))


def _unfound(loss: _Loss, path: str) -> Result:
    others = ", ".join(p for p in loss.suspects if p != path)
    detail = (
        f"{loss.reason} while this example ran beside {others}; run again one at a time, none of them did it "
        "again. An example must not kill, stop or signal the process that runs it, nor write to its pipes: "
        "one of these did, or something outside the build did (then build again)"
    )
    return Result(failure=Failure("worker", detail=detail))


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
