"""How the build judges one example's run: from its record and its exit status, cross-checked.

The record is written by the runner, in the example's own process, so an example can tamper
with it (patch the runner, write to its descriptor). What the parent can check, it checks here
instead of believing: every cell accounted for, in order, each with the result its tags call
for (a ``raises-exception`` cell raised, a skipped cell is a ``requires-cuda`` one on a machine
without CUDA or a ``requires-<module>`` one where that module does not import), one ``end``
event, last, and an exit status of 0. A record that does not add up
is a failure of its own (``record``). What runs inside the example's process cannot be
guaranteed beyond this (README: "Examples are untrusted code").
"""

from __future__ import annotations

import re
import signal
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

from mkdocs_examples.execute.child.budget import Budget
from mkdocs_examples.results import RESULT, CellResult, Failure, FailureKind, Options, Result
from mkdocs_examples.schema import JSONError, loads, validate
from mkdocs_examples.source.cells import Cell, Example

_RUNNER_KINDS = ("exception", "exit", "no-exception", "figure", "limit")  # the failures a runner may record
_MEMORY = re.compile(r"^(MemoryError\b|.*DefaultCPUAllocator: can't allocate memory)", re.MULTILINE)
_FILE_SIZE = re.compile(r"^OSError: \[Errno 27\] File too large", re.MULTILINE)
_NO_SPACE = re.compile(r"^OSError: \[Errno 28\] No space left on device", re.MULTILINE)


class _Untrue(Exception):
    """The record does not add up."""


def collect(
    example: Example, record: Path, faults: Path, done: dict, timeout: float, options: Options
) -> Result:
    """The result of one run, from what its child recorded and how its process ended."""
    result = _read(example, record, faults, done, timeout, options)
    if done.get("oom"):  # the kernel killed a process of it at its memory cgroup's limit: whatever it left
        return _out_of_memory(result, done["oom"], options)
    if result.failure is None and done.get("leftover"):
        left = done["leftover"]
        listed = "; ".join(left[:5]) + (f"; and {len(left) - 5} more" if len(left) > 5 else "")
        detail = (
            f"processes it started were still running after it ended, and were killed: {listed}. An example "
            "must end every process it starts (wait for it, join it, terminate it) before its last line"
        )
        return Result(result.cells, result.env, Failure("leftover", detail=detail), result.seconds, result.depends)
    return result


def _read(example: Example, record: Path, faults: Path, done: dict, timeout: float, options: Options) -> Result:
    cells: list[CellResult] = []
    env: dict[str, str] = {}
    depends: dict[str, str] = {}
    failure: Failure | None = None
    declared: list[Failure] = []  # failed checks its cells' holds= expect on this torch (source/holds.py)
    running: int | None = None
    phases: dict[str, float] = {}
    events: list[str | None] = []  # the names of the record's events, in order
    text = record.read_text(encoding="utf-8", errors="replace") if record.exists() else ""
    unreadable = None  # the first line that is not an event of the runner's, and why
    number, text_line = 0, ""
    try:
        for number, text_line in enumerate(text.splitlines(), 1):  # noqa: B007 (named in the error below)
            event = loads(text_line)
            name = event.pop("event", None) if isinstance(event, dict) else None
            events.append(name)
            if name == "env":
                env = dict(validate(event.get("env"), f"{RESULT}#/$defs/env"))
            elif name == "start":
                running = int(validate(event.get("cell"), f"{RESULT}#/$defs/index"))
            elif name == "cell":
                cells.append(CellResult.from_json(event))
                running = None
            elif name == "failure":
                failure = Failure.from_json(event)
            elif name == "declared":
                declared.append(Failure.from_json(event))
            elif name == "depends":
                depends = dict(validate(event.get("depends"), f"{RESULT}#/$defs/depends"))
            elif name == "phases":  # timings alone: what does not look like one is left out
                phases = {key: float(v) for key, v in event.items() if type(v) in (int, float)}
            elif name != "end":
                raise JSONError("not an event of the engine's runner")
    except JSONError as error:
        events = []  # a line cut short by a crash, or written by the example itself
        unreadable = f"line {number} of its record ({text_line[:200]!r}): {error}"
    seconds, code = done["seconds"], done["returncode"]
    timed_out = done["timed_out"] or seconds >= timeout
    if unreadable and code == 0 and not timed_out:  # not a crash: say what could not be read
        return Result(tuple(cells), env, Failure("record", detail=unreadable), seconds, depends)
    if events[-1:] == ["end"] and code == 0 and not timed_out:
        try:
            _check_declared(example, cells, declared, env)
            failure = _check(example, events, cells, failure, options, {f.cell for f in declared})
        except _Untrue as untrue:
            failure = Failure("record", detail=f"its record does not add up: {untrue}")
        return Result(tuple(cells), env, _limited(failure, options), seconds, depends, phases=phases,
                      declared=tuple(declared))  # fmt: skip
    stack = faults.read_text(errors="replace") if faults.exists() else ""
    cell = example.cells[running] if running is not None and running < len(example.cells) else None
    found = re.findall(rf'File "{re.escape(example.display)}", line (\d+)', stack)
    line = int(found[0]) if found else (cell.lineno if cell else None)  # faulthandler: innermost first
    kind: FailureKind = "timeout" if timed_out else "crash" if code < 0 else "early-exit"
    failure = Failure(kind, cell.index if cell else None, line, stack.strip() or None, code, timeout)
    return Result(tuple(cells), env, _limited(failure, options), seconds, depends, declared=tuple(declared))


def _check_declared(example: Example, cells: list[CellResult], declared: list[Failure], env: dict[str, str]) -> None:
    """:class:`_Untrue` unless each failure the run went on after is one its cell's ``holds=`` expects on the torch
    the record names: a failed check, of a cell that ran, outside the cell's range."""
    ran = {c.cell for c in cells}
    torch = env.get("torch")
    for failed in declared:
        cell = example.cells[failed.cell] if failed.cell is not None and failed.cell < len(example.cells) else None
        if (cell is None or cell.index not in ran or cell.holds is None or failed.kind not in KEPT_DECLARED
                or torch is None or cell.holds.covers(torch)):  # fmt: skip
            raise _Untrue(f"a failure at cell {failed.cell} that no holds= declares on torch {torch}")


KEPT_DECLARED = ("exception", "no-exception")  # the failures a holds= declaration may expect: failed checks


def _may_skip(cell: Cell, skipped: str, options: Options) -> bool:
    """Whether ``cell`` may be skipped for the reason ``skipped``: a CUDA cell off a GPU, or a cell that needs a
    module (``requires-<module>``) where that module does not import."""
    if skipped == "requires-cuda":
        return cell.has("requires-cuda") and options.device != "cuda"
    return cell.module is not None and skipped == f"requires-{cell.module}"


def _check(
    example: Example, events: list[str | None], cells: list[CellResult], failure: Failure | None, options: Options,
    declared: Collection[int | None] = (),
) -> Failure | None:
    """The failure the record shows, as the parent judges it; :class:`_Untrue` if it does not add up. ``declared``:
    the cells whose failed check their holds= expects (:func:`_check_declared`)."""
    if events.count("end") != 1:
        raise _Untrue("more than one end")
    starts = events.count("start")
    if [c.cell for c in cells] != list(range(len(cells))) or starts != len(cells):
        raise _Untrue(f"its cells are not the example's, in order (cells {[c.cell for c in cells][:20]})")
    if len(cells) > len(example.cells):
        raise _Untrue(f"{len(cells)} cells recorded, the example has {len(example.cells)}")
    if failure is not None and (failure.kind not in _RUNNER_KINDS or failure.cell != len(cells) - 1):
        raise _Untrue(f"a failure of kind {failure.kind!r} at cell {failure.cell} after {len(cells)} cells")
    for result in cells:
        cell = example.cells[result.cell]
        if result.skipped is not None and not _may_skip(cell, result.skipped, options):
            raise _Untrue(f"cell {result.cell} was skipped ({result.skipped!r}), which its tags do not allow")
        if result.traceback is not None and not cell.has("raises-exception"):
            raise _Untrue(f"cell {result.cell} shows an exception but is not tagged raises-exception")
        raised = result.traceback is not None or result.skipped is not None or result.cell in declared
        if cell.has("raises-exception") and not raised and failure is None:
            return Failure("no-exception", cell.index, cell.lineno)
    over = _over_budget(example, cells, options)
    if failure is not None and failure.kind == "limit" and (over is None or over.cell != failure.cell):
        raise _Untrue(f"cell {failure.cell} is said to go past a limit of the options, and does not")
    if over is not None and (failure is None or failure.kind == "limit"):
        return over
    if failure is None and len(cells) != len(example.cells):
        raise _Untrue(f"{len(cells)} of its {len(example.cells)} cells recorded, and no failure")
    return failure


def _over_budget(example: Example, cells: list[CellResult], options: Options) -> Failure | None:
    """The first cell whose output takes the example's past a bound of the options, counted here (budget.py)."""
    spend = Budget(options).spend
    return next((f for c in cells if (f := spend(c, example.cells[c.cell].lineno)) is not None), None)


def _out_of_memory(result: Result, killed: int, options: Options) -> Result:
    """``result`` failed as an example that went past ``max_memory``, where its memory cgroup stopped it."""
    failure = result.failure or Failure("limit")
    processes = "one of its processes" if killed == 1 else f"{killed} of its processes"
    detail = (
        f"it exceeded max_memory ({options.max_memory} MiB), and the kernel killed {processes}: that limit counts "
        "the memory its processes write to, shared memory and the files in its /tmp and /dev/shm included. Make "
        "the example smaller, or raise the plugin option `max_memory`"
    )
    stopped = Failure("limit", failure.cell, failure.line, failure.traceback, failure.returncode, None, detail)
    return replace(result, failure=stopped)


def full(options: Options) -> str:
    """What an example may write, and what to do when it writes more (0 in an option: no limit)."""
    files = f"{options.max_files} files and folders" if options.max_files else "any number of files"
    size = f"{options.max_folder_size} MiB" if options.max_folder_size else "any size"
    return (
        f"its own folder (its working folder, HOME and TMPDIR) may hold {files} of {size} in all (plugin options "
        "`max_files` and `max_folder_size`), and /tmp and /dev/shm as many files each, of half of `max_memory`. "
        "Write fewer or smaller files, or raise the option"
    )


def _limited(failure: Failure | None, options: Options) -> Failure | None:
    """``failure`` as a ``limit`` failure, naming the option, where a limit of the options caused it."""
    if failure is None:
        return None
    text = failure.traceback or ""
    if failure.kind == "exception" and options.max_memory and options.device != "cuda" and _MEMORY.search(text):
        why = (
            f"it ran out of memory: an example's process may use {options.max_memory} MiB (plugin option "
            "`max_memory`); make the example smaller, or raise the option"
        )
    elif options.max_file_size and (
        (failure.kind == "exception" and _FILE_SIZE.search(text))
        or (failure.kind == "crash" and failure.returncode == -signal.SIGXFSZ)
    ):
        why = (
            f"it wrote a file, or printed, past {options.max_file_size} MiB (plugin option `max_file_size`); "
            "write or print less, or raise the option"
        )
    elif failure.kind == "exception" and (options.max_files or options.max_folder_size) and _NO_SPACE.search(text):
        why = f"a folder it writes in is full: {full(options)}"
    else:
        return failure
    return Failure("limit", failure.cell, failure.line, failure.traceback, failure.returncode, None, why)
