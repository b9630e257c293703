"""Run one example, cell by cell, inside a freshly forked worker process.

Everything here happens in the child that :mod:`mkdocs_examples.pool` forks for the
example, so it may change global state freely: nothing reaches the next example.
Progress is appended to a JSON-lines *record* file, one line per event, so that the
parent can tell how far an example got even when it crashes or is killed.
"""

from __future__ import annotations

import base64
import builtins
import ctypes
import faulthandler
import io
import json
import linecache
import os
import platform
import random
import re
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs_examples.cells import Cell, Example

# Python's own warning filters, read when the worker imports this module and before it
# preloads torch or numpy, so that an example warns exactly as `python example.py` would
_PYTHON_FILTERS = list(warnings.filters)
_REAL_EXIT = os._exit


@dataclass(frozen=True)
class Options:
    """What the engine passes to every run; all of it is part of the cache key."""

    device: str = "cpu"  # "cpu" or "cuda": which cells run, what provenance says
    seed: int = 0  # seed for random, numpy and torch before each example
    threads: int = 1  # torch intra-op threads per example: outputs independent of core count
    max_output: int = 20_000  # characters kept of one cell's output


def run_example(example: Example, record: Path, faults: Path, options: Options, timeout: float) -> None:
    """Run every cell of ``example``; append events to ``record``."""
    with open(record, "a", encoding="utf-8") as log, open(faults, "w") as fault_file:
        faulthandler.enable(file=fault_file)  # a segfault or abort leaves the Python stack here
        faulthandler.dump_traceback_later(timeout, file=fault_file)  # so does a timeout

        def emit(**event: Any) -> None:
            log.write(json.dumps(event) + "\n")
            log.flush()

        _prepare(example, options, fault_file)
        emit(event="env", env=_environment(options))
        with tempfile.TemporaryDirectory(prefix="example-") as scratch:
            workdir = Path(scratch, "cwd")
            workdir.mkdir()
            os.chdir(workdir)  # files an example writes land in an empty folder of its own
            namespace = {"__name__": "__main__", "__file__": str(example.file), "__builtins__": builtins}
            capture = _Capture(Path(scratch, "output"))
            for cell in example.cells:
                emit(event="start", cell=cell.index)
                result, failure = _run_cell(cell, example, namespace, capture, options)
                emit(event="cell", **result)
                if failure:
                    emit(event="failure", **failure)
                    break
            os.chdir("/")
        emit(event="end")


def _prepare(example: Example, options: Options, fault_file: io.TextIOBase) -> None:
    """Give the example the process state ``python examples/<path>`` would give it."""
    sys.argv = [str(example.file)]
    sys.path[0] = str(example.file.parent)
    source_lines = example.source.splitlines(keepends=True)
    linecache.cache[example.display] = (len(example.source), None, source_lines, example.display)
    warnings.filters[:] = _PYTHON_FILTERS
    warnings._filters_mutated()
    warnings.showwarning = _show_warning

    def _exit(code: int) -> None:  # leave the stack behind, so the failure can name the line
        faulthandler.dump_traceback(file=fault_file)
        _REAL_EXIT(code)

    os._exit = _exit  # for the example's own calls only: the worker ends children with _REAL_EXIT
    random.seed(options.seed)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(options.seed)
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        torch.manual_seed(options.seed)
        torch.set_num_threads(options.threads)


def _environment(options: Options) -> dict[str, str]:
    env = {"python": platform.python_version(), "device": options.device}
    if "torch" in sys.modules:
        env["torch"] = sys.modules["torch"].__version__
    return env


# Terminal escape sequences (colours, bold) that some libraries print, torch.load among them
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _run_cell(
    cell: Cell, example: Example, namespace: dict, capture: _Capture, options: Options
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    result: dict[str, Any] = {"cell": cell.index, "output": "", "truncated": 0, "images": [], "traceback": None}
    if cell.has("requires-cuda") and options.device != "cuda":
        result["skipped"] = "requires-cuda"
        return result, None
    failure = None
    start = time.perf_counter()
    with capture:
        try:
            code = compile("\n" * (cell.lineno - 1) + cell.source, example.display, "exec")
            exec(code, namespace)
        except BaseException as exc:
            text, line = _format_traceback(exc, example.display)
            text = _ANSI.sub("", text)
            if cell.has("raises-exception") and not isinstance(exc, (SystemExit, KeyboardInterrupt)):
                result["traceback"] = text
            else:
                kind = "exit" if isinstance(exc, SystemExit) else "exception"
                failure = {"kind": kind, "cell": cell.index, "line": line or cell.lineno, "traceback": text}
        else:
            if cell.has("raises-exception"):
                failure = {"kind": "no-exception", "cell": cell.index, "line": cell.lineno, "traceback": None}
    result["seconds"] = round(time.perf_counter() - start, 4)
    output = _ANSI.sub("", capture.text)  # a page shows plain text, not terminal colours
    if len(output) > options.max_output:
        result["truncated"] = len(output) - options.max_output
        output = output[: options.max_output]
    result["output"] = output
    result["images"] = _figures()
    return result, failure


def _format_traceback(exc: BaseException, display: str) -> tuple[str, int | None]:
    """The traceback with only the example's own frames; and the line it points at."""
    top = traceback.TracebackException.from_exception(exc)
    pending, seen = [top], set()
    while pending:
        te = pending.pop()
        if id(te) in seen:
            continue
        seen.add(id(te))
        te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename == display])
        pending += [t for t in (te.__cause__, te.__context__) if t is not None]
    line = top.stack[-1].lineno if top.stack else getattr(exc, "lineno", None)
    return "".join(top.format()), line


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    # Library paths differ between machines; keep the part a reader recognises
    short = filename.split("site-packages/")[-1]
    sys.stderr.write(f"{short}:{lineno}: {category.__name__}: {message}\n")


def _figures() -> list[str]:
    """Every open matplotlib figure as a base64 PNG; the figures are closed."""
    if "matplotlib.pyplot" not in sys.modules:
        return []
    plt = sys.modules["matplotlib.pyplot"]
    images = []
    for number in plt.get_fignums():
        buffer = io.BytesIO()
        plt.figure(number).savefig(buffer, format="png", bbox_inches="tight")
        images.append(base64.b64encode(buffer.getvalue()).decode())
    plt.close("all")
    return images


class _Capture:
    """Send file descriptors 1 and 2 (Python, C and subprocess output alike) to one file."""

    _libc = ctypes.CDLL(None)

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
        self.text = ""

    def __enter__(self) -> None:
        os.ftruncate(self.fd, 0)
        os.lseek(self.fd, 0, os.SEEK_SET)
        os.dup2(self.fd, 1)
        os.dup2(self.fd, 2)
        stream = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
        sys.stdout = sys.stderr = stream

    def __exit__(self, *exc_info: object) -> None:
        sys.stdout.flush()
        self._libc.fflush(None)
        size = os.fstat(self.fd).st_size
        self.text = os.pread(self.fd, size, 0).decode("utf-8", errors="replace")
