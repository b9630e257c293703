"""A preloaded worker that forks one child per example.

The worker (``python -m mkdocs_examples.pool torch numpy``) imports the heavy modules
once, touches neither CUDA nor any thread pool, then waits for batches on stdin. For
each example of a batch it forks a child in a session of its own, at most
``parallel`` at a time, and answers one JSON line per finished child. The parent
side, :class:`Pool`, turns the child's record file and exit status into a result.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mkdocs_examples.cells import Example
from mkdocs_examples.runner import _REAL_EXIT, Options, run_example

GRACE = 1.0  # seconds after a timeout for faulthandler to write the stack before the kill


class PoolError(Exception):
    """The worker process could not start or stopped answering."""


class Pool:
    """The parent's handle on one worker process, started on first use and kept until closed."""

    def __init__(self, preload: list[str]) -> None:
        self.preload = preload
        self._proc: subprocess.Popen | None = None
        self._scratch: tempfile.TemporaryDirectory | None = None  # the children's record files
        self.info: dict[str, Any] = {}

    def start(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            env = dict(os.environ, MPLBACKEND="Agg", PYTORCH_NVML_BASED_CUDA_CHECK="1")
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "mkdocs_examples.pool", *self.preload],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
            )  # fmt: skip
            self.info = self._answer()
            if self._scratch is None:
                self._scratch = tempfile.TemporaryDirectory(prefix="mkdocs-examples-")
        return self._proc

    def _answer(self) -> dict[str, Any]:
        assert self._proc and self._proc.stdout
        line = self._proc.stdout.readline()
        if not line:
            raise PoolError(f"the example worker exited with code {self._proc.wait()}; its error is printed above")
        return json.loads(line)

    def run(
        self, examples: list[Example], options: Options, *, timeout: float, parallel: int
    ) -> Iterator[tuple[Example, dict[str, Any]]]:
        """Run ``examples``; yield each with its result as soon as it finishes."""
        proc = self.start()
        assert self._scratch
        workdir = Path(self._scratch.name)
        jobs = {n: (e, workdir / f"{n}.jsonl", workdir / f"{n}.faults") for n, e in enumerate(examples)}
        batch = {
            "options": options.__dict__,
            "timeout": timeout,
            "parallel": parallel,
            "jobs": [
                {"id": n, "path": e.path, "file": str(e.file), "source": e.source, "record": str(r), "faults": str(f)}
                for n, (e, r, f) in jobs.items()
            ],
        }
        assert proc.stdin
        proc.stdin.write(json.dumps(batch) + "\n")
        proc.stdin.flush()
        for _ in jobs:
            done = self._answer()
            example, record, faults = jobs[done["id"]]
            result = _collect(example, record, faults, done, timeout)
            record.unlink(missing_ok=True)
            faults.unlink(missing_ok=True)
            yield example, result

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()  # the worker exits at end of input
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            if self._proc.stdout:
                self._proc.stdout.close()
            self._proc = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


def _collect(example: Example, record: Path, faults: Path, done: dict, timeout: float) -> dict[str, Any]:
    """Assemble a result from what the child recorded and how it ended."""
    result: dict[str, Any] = {"cells": [], "env": {}, "failure": None, "seconds": done["seconds"]}
    running, finished = None, False
    text = record.read_text(encoding="utf-8") if record.exists() else ""
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            break  # a line cut short by a crash
        kind = event.pop("event")
        if kind == "env":
            result["env"] = event["env"]
        elif kind == "start":
            running = event["cell"]
        elif kind == "cell":
            result["cells"].append(event)
            running = None
        elif kind == "failure":
            result["failure"] = event
        elif kind == "end":
            finished = True
    if finished and not done["timed_out"]:
        return result
    stack = faults.read_text(errors="replace") if faults.exists() else ""
    cell = example.cells[running] if running is not None and running < len(example.cells) else None
    found = re.search(rf'File "{re.escape(example.display)}", line (\d+)', stack)
    line = int(found[1]) if found else (cell.lineno if cell else None)
    code = done["returncode"]
    if done["timed_out"]:
        kind = "timeout"
    elif code < 0:
        kind = "crash"
    else:
        kind = "early-exit"
    result["failure"] = {
        "kind": kind,
        "cell": cell.index if cell else None,
        "line": line,
        "returncode": code,
        "timeout": timeout,
        "traceback": stack.strip() or None,
    }
    return result


# --- the worker process ------------------------------------------------------------


def serve(preload: list[str]) -> None:
    for name in preload:
        importlib.import_module(name)
    cuda = False
    if "torch" in sys.modules:
        cuda = sys.modules["torch"].cuda.is_available()  # NVML-based check: CUDA stays uninitialised
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])  # waited for with sigtimedwait
    _say({"ready": True, "cuda": cuda, "pid": os.getpid()})
    for line in sys.stdin:
        batch = json.loads(line)
        options = Options(**batch["options"])
        _run_batch(deque(batch["jobs"]), options, batch["timeout"], batch["parallel"])


def _run_batch(queue: deque, options: Options, timeout: float, parallel: int) -> None:
    running: dict[int, tuple[dict, float, bool]] = {}  # pid: (job, start, killed)
    while queue or running:
        while queue and len(running) < max(1, parallel):
            job = queue.popleft()
            pid = os.fork()
            if pid == 0:
                _child(job, options, timeout)
            running[pid] = (job, time.monotonic(), False)
        while running:  # reap every child that has ended
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            job, start, killed = running.pop(pid)
            seconds = round(time.monotonic() - start, 4)
            _say({"id": job["id"], "returncode": _returncode(status), "timed_out": killed, "seconds": seconds})
        now = time.monotonic()
        for pid, (job, start, killed) in list(running.items()):
            if not killed and now - start > timeout + GRACE:
                os.killpg(pid, signal.SIGKILL)  # the example's own subprocesses too
                running[pid] = (job, start, True)
        if running and (len(running) >= max(1, parallel) or not queue):  # nothing to start: sleep
            deadlines = [start + timeout + GRACE - now for _, start, killed in running.values() if not killed]
            signal.sigtimedwait([signal.SIGCHLD], max(0.01, min(deadlines, default=1.0)))


def _child(job: dict, options: Options, timeout: float) -> None:
    code = 70
    try:
        os.setsid()  # a process group of its own, killed as one on timeout
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # never write into the worker's answer pipe
            os.dup2(devnull, fd)
        example = Example.from_source(job["path"], Path(job["file"]), job["source"])
        run_example(example, Path(job["record"]), Path(job["faults"]), options, timeout)
        code = 0
    except BaseException:
        with open(job["faults"], "a") as faults:
            traceback.print_exc(file=faults)
    finally:
        _REAL_EXIT(code)  # no interpreter shutdown: it would cost torch's teardown, per example


def _returncode(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    serve(sys.argv[1:])
