"""Every text path stays linear, so that a hostile input cannot make a build slow: recordings, outputs,
tracebacks and the PR summary.

What an example prints, what a recording holds and what a snapshot says come from strangers'
pull requests. Each path below gets an input of size N and of 4N (one huge line, many lines, a
traceback of many frames), and must take less than RATIO times as long at 4N as at N: about 4
when linear, 16 when quadratic. A quadratic path needs minutes at these sizes, so a deadline
stops it early instead of letting it run (SIGPROF; `re` and Python code both see it). The times
are the test thread's CPU time, not the clock's, and a size is timed again, up to TRIES times,
while the ratio looks too high: another process on the same core slows a run down, and the
fastest run of each size is the path's own cost. A quadratic path stays slow on every try.
"""

from __future__ import annotations

import gc
import json
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mkdocs_examples.execute.child.clean import Cleaner
from mkdocs_examples.publish import error_index, outputs
from mkdocs_examples.recordings.store import Published, Recording, dumps, file_of, read
from mkdocs_examples.render.page import render_example
from mkdocs_examples.render.provenance import Sources
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.blocks import find_blocks
from mkdocs_examples.source.cells import Example

RATIO = 8  # time at 4N over time at N: 4 when linear, 16 when quadratic
FLOOR = 0.02  # seconds: a time at N below this counts as this (timers and a busy machine's noise)
DEADLINE = 3.0  # CPU seconds for one path at both sizes (it takes 0.1 to 0.6); a quadratic one needs minutes
TRIES = 4  # times each input is timed at most

SOURCE = """\
# %% big
print("a." * 1000)
# %% many
import warnings
for i in range(1000): warnings.warn(str(i))
# %% fails tags=["raises-exception"]
raise ValueError("a." * 1000)
"""
EXAMPLE = Example.from_source("d/x.py", Path("/x/examples/d/x.py"), SOURCE)
SITE = {"device": "cpu", "torch": "2.13.0+cpu", "python": "3.11.7"}
OTHER = {"device": "cpu", "torch": "2.14.1+cpu", "python": "3.11.7"}


def huge_line(n: int, letter: str = "a") -> str:
    """One line of ``n`` characters that looks like paths to the noise patterns: dots, no spaces, no file name."""
    return f"{letter}." * (n // 4) + "/x" * (n // 4) + letter + "\n"


def many_lines(n: int) -> str:
    """About ``n`` characters of warnings citing the example's lines, numbers and addresses."""
    line = f"{EXAMPLE.display}:5: UserWarning: 0x7f00deadbeef 3x4 "
    return "".join(f"{line}{i}\n" for i in range(n // (len(line) + 6)))


def traceback(n: int, message: str = "a") -> str:
    """A traceback of about ``n`` characters: many frames, then a message of one huge line."""
    frame = f'  File "{EXAMPLE.display}", line 7, in <module>\n    raise ValueError("a." * 1000)\n'
    frames = frame * max(1, n // 2 // len(frame))
    return f"Traceback (most recent call last):\n{frames}ValueError: {huge_line(n // 2, message)}"


def cells(n: int, variant: str = "a") -> tuple[CellResult, ...]:
    return (
        CellResult(0, huge_line(n, variant)),
        CellResult(1, many_lines(n) + variant + "\n"),
        CellResult(2, traceback=traceback(n, variant)),
    )


# --- the paths --------------------------------------------------------------------------------


def recording(n: int, tmp_path: Path, tag: str) -> Path:
    """A recording of the example in another torch release, written where the build reads it."""
    made = Recording(EXAMPLE.path, EXAMPLE.keys, "2026-11-22T10:00:00Z", OTHER, 1.0, cells(n, "b" + tag),
                     tuple(c.name for c in EXAMPLE.cells))  # fmt: skip
    folder = tmp_path / f"recordings-{n}-{tag}"
    file = file_of(folder, EXAMPLE.path)
    file.parent.mkdir(parents=True)
    file.write_text(dumps(made), encoding="utf-8")
    return file


def read_relocate_render(file: Path) -> None:
    """Read and check a recording, relocate its cited lines, render it beside the build's own outputs."""
    made = read(file, file.parents[1])
    published = (Published.holding("cpu", made, EXAMPLE, SITE, "cpu-torch2.14.1-py3.11"),)
    built = Result(env=SITE, cells=cells(len(made.cells[0].output)))
    page = render_example(EXAMPLE, built, None, lang="en", limit=1 << 30, published=published, sources=Sources())
    assert made.cells[0].output.rstrip("\n")[-1000:] in page and "0x7f00deadbeef" in page


def index(n: int, tmp_path: Path, tag: str) -> tuple[Result, Result]:
    return Result(env=SITE, cells=cells(n, "a" + tag)), Result(env=OTHER, cells=cells(n, "b" + tag))


def render_and_index(results: tuple[Result, Result]) -> None:
    """A traceback of many frames and a huge message, on its page and in the error index, in two releases."""
    render_example(EXAMPLE, results[0], None, lang="en", limit=1 << 30, sources=Sources())
    pages = {"en/d/x.md": ("X", find_blocks("/// example | d/x.py\n///\n"))}
    (entry,) = error_index.collect(pages, {EXAMPLE.path: EXAMPLE}, {EXAMPLE.path: list(results)})
    assert len(entry.wordings) == 2
    error_index.render([entry], "errors/all.md", "en")


def output(n: int, tmp_path: Path, tag: str) -> tuple[Cleaner, str]:
    text = huge_line(n, tag) + many_lines(n).replace("\n", "\r\x1b[0m\n") + traceback(n) + str(tmp_path) + "/w\n"
    return Cleaner(tmp_path, tmp_path / "work", tmp_path / "tmp", limit=1 << 30), text


def snapshots(n: int, tmp_path: Path, tag: str) -> tuple[Path, Path]:
    """The PR summary's two snapshots: a huge line changed, many lines changed, a traceback changed."""
    lines = [f"{i}\n" for i in range(n // 8)]
    interleaved = [line for i in range(n // 8) for line in (f"{i}\n", "y\n")]  # difflib's worst case
    files = []
    for side, (first, second) in {"old": ("a" + tag, lines), "new": ("b" + tag, interleaved)}.items():
        raw = [
            {"cell": 0, "name": "big", "line": 1, "hidden": False, "output": [huge_line(n, first)]},
            {"cell": 1, "name": "many", "line": 3, "hidden": False, "output": second},
            {"cell": 2, "name": "fails", "line": 6, "hidden": False, "output": [],
             "traceback": traceback(n, first).splitlines(keepends=True)},
        ]  # fmt: skip
        example = {"keys": list(EXAMPLE.keys), "origin": "run", "failure": None, "pages": ["en/d/x.md"],
                   "cells": [{"traceback": None, "images": [], "skipped": None, **cell} for cell in raw]}  # fmt: skip
        file = tmp_path / f"{side}-{n}-{tag}.json"
        file.write_text(json.dumps({"schema": outputs.SCHEMA, "env": SITE, "examples": {EXAMPLE.path: example}}))
        files.append(file)
    return files[0], files[1]


def summary(files: tuple[Path, Path]) -> None:
    text = outputs.report(outputs.read(files[0]), outputs.read(files[1]), stale=[])
    assert "The output of 3 cells of 1 example changed" in text


PATHS: dict[str, tuple[Callable[[int, Path, str], Any], Callable[[Any], Any], int]] = {
    # name: (make the input of size n, its texts marked with a tag, run the path on it, n)
    "a recording read, relocated and rendered": (recording, read_relocate_render, 1 << 15),
    "an output cleaned": (output, lambda made: made[0](made[1]), 1 << 16),
    "a traceback rendered and indexed": (index, render_and_index, 1 << 15),
    "the PR summary of huge outputs": (snapshots, summary, 1 << 14),
}


@pytest.mark.parametrize("name", sorted(PATHS))
def test_the_path_is_linear(name, tmp_path):
    make, run, n = PATHS[name]
    # two inputs of each size, their texts tagged apart: no cache (normalise's, a recording's) answers the second
    small, large = [make(n, tmp_path, tag) for tag in "01"], [make(4 * n, tmp_path, tag) for tag in "01"]
    run(make(64, tmp_path, "warm"))  # imports, compiled patterns
    at_n, at_4n = _fastest(run, small, large, name)
    assert at_4n < RATIO * max(at_n, FLOOR), (
        f"{name}: {at_n:.3f} CPU s at N = {n:,}, {at_4n:.3f} at 4N: it grows faster than its input"
    )


def _fastest(
    run: Callable[[Any], Any], small: list[Any], large: list[Any], name: str, deadline: float = DEADLINE
) -> tuple[float, float]:
    """The fastest CPU times of `run` on the inputs of size N and of 4N, each try under the deadline.

    The sizes take turns, so that a busy moment slows both, and the tries stop once the ratio is linear.
    """
    at_n = at_4n = float("inf")
    for _ in range(TRIES):
        with _deadline(deadline, name):
            for one, other in zip(small, large, strict=True):
                at_n = min(at_n, _timed(run, one))
                at_4n = min(at_4n, _timed(run, other))
        if at_4n < RATIO * max(at_n, FLOOR):
            break
    return at_n, at_4n


def _timed(run: Callable[[Any], Any], made: Any) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        run(made)
        return time.thread_time() - start
    finally:
        gc.enable()


@contextmanager
def _deadline(seconds: float, name: str) -> Iterator[None]:
    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"{name}: still running after {seconds} CPU seconds at N and 4N: not linear")

    previous = signal.signal(signal.SIGPROF, expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
