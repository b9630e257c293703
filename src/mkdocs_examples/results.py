"""What running an example produces: one typed model shared by runner, pool, cache, render and CLI.

Results travel as JSON twice: from the forked child to the parent (a record file), and
into the cache. :func:`Result.from_json` validates every field, so an entry of the wrong
shape (an older engine's, a hand-edited or truncated file) is rejected, never half-used.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, get_args

FailureKind = Literal[
    "exception",  # an unexpected exception in a cell
    "no-exception",  # a cell tagged raises-exception raised nothing
    "exit",  # the example called sys.exit()
    "timeout",  # it ran longer than the plugin option `timeout`
    "crash",  # its process died from a signal
    "early-exit",  # its process ended before its last cell (os._exit)
    "worker",  # it killed, stopped or signalled the engine's worker process
    "sandbox",  # it changed files of the project
    "record",  # its process ended normally, but what it recorded could not be read, or does not add up
    "leftover",  # processes it started were still running after it ended
    "limit",  # it went past a limit of the plugin options (max_source, max_memory, max_file_size)
]


@dataclass(frozen=True)
class Options:
    """What the engine passes to every run; all of it is part of the cache key."""

    device: str = "cpu"  # "cpu" or "cuda": which cells run, what provenance says
    seed: int = 0  # seed for random, numpy and torch before each example
    threads: int = 1  # torch intra-op threads per example: outputs independent of core count
    max_output: int = 20_000  # characters kept of one cell's output
    max_source: int = 1 << 20  # bytes of source an example may have; a larger one is refused unrun
    max_memory: int = 4096  # MiB of data memory per example process (RLIMIT_DATA); not on cuda; 0: none
    max_file_size: int = 256  # MiB a file the example writes may reach (RLIMIT_FSIZE), its output too; 0: none


class ShapeError(ValueError):
    """A JSON value does not have the shape of a result."""


@dataclass(frozen=True)
class CellResult:
    cell: int  # index into Example.cells
    output: str = ""  # what the cell printed: stdout and stderr, Python and C level alike
    truncated: int = 0  # characters cut from the end of `output`
    images: tuple[str, ...] = ()  # matplotlib figures, base64 PNG
    traceback: str | None = None  # the exception of a cell tagged raises-exception
    skipped: str | None = None  # "requires-cuda" when the cell was not run on this device
    seconds: float = 0.0


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    cell: int | None = None
    line: int | None = None  # line in the example file, where known
    traceback: str | None = None  # the Python traceback, or the stack at a crash or timeout
    returncode: int | None = None  # of the example's process; negative: killed by that signal
    timeout: float | None = None  # the limit that applied, for kind "timeout"
    detail: str | None = None  # a sentence for kinds the engine detects itself ("worker", "sandbox", "limit"...)


@dataclass(frozen=True)
class Result:
    cells: tuple[CellResult, ...] = ()
    env: dict[str, str] = field(default_factory=dict)  # python, torch, device: the provenance line
    failure: Failure | None = None
    seconds: float = 0.0  # wall time of the example's process
    # what the run imported beyond the standard library, for the cache to check on reuse:
    # "dist:<distribution>" -> version, "file:<path under the examples folder>" -> sha256
    depends: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Result:
        """The result ``data`` describes; :class:`ShapeError` when any part has the wrong shape."""
        obj = _fields(data, cls)
        failure = obj["failure"]
        return cls(
            cells=tuple(parse_cell(c) for c in _typed(obj["cells"], list)),
            env=parse_strings(obj["env"]),
            failure=None if failure is None else parse_failure(failure),
            seconds=_number(obj["seconds"]),
            depends=parse_strings(obj["depends"]),
        )


def parse_cell(data: Any) -> CellResult:
    obj = _fields(data, CellResult)
    images = _typed(obj["images"], list)
    return CellResult(
        cell=_typed(obj["cell"], int),
        output=_typed(obj["output"], str),
        truncated=_typed(obj["truncated"], int),
        images=tuple(_typed(i, str) for i in images),
        traceback=_optional(obj["traceback"], str),
        skipped=_optional(obj["skipped"], str),
        seconds=_number(obj["seconds"]),
    )


def parse_failure(data: Any) -> Failure:
    obj = _fields(data, Failure)
    if obj["kind"] not in get_args(FailureKind):
        raise ShapeError(f"unknown failure kind {obj['kind']!r}")
    timeout = obj["timeout"]
    return Failure(
        kind=obj["kind"],
        cell=_optional(obj["cell"], int),
        line=_optional(obj["line"], int),
        traceback=_optional(obj["traceback"], str),
        returncode=_optional(obj["returncode"], int),
        timeout=None if timeout is None else _number(timeout),
        detail=_optional(obj["detail"], str),
    )


def _fields(data: Any, cls: type) -> dict[str, Any]:
    """``data`` as a dict with exactly the fields of dataclass ``cls``."""
    names = {f.name for f in fields(cls)}
    if not isinstance(data, dict) or set(data) != names:
        raise ShapeError(f"expected an object with the fields of {cls.__name__}")
    return data


def _typed(value: Any, kind: type) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ShapeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _optional(value: Any, kind: type) -> Any:
    return None if value is None else _typed(value, kind)


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ShapeError(f"expected a number, got {type(value).__name__}")
    return float(value)


def parse_strings(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ShapeError("expected an object of strings")
    return dict(value)
