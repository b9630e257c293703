"""What running an example produces: one typed model shared by runner, pool, cache, render and CLI.

Results travel as JSON twice: from the forked child to the parent (a record file), and
into the cache. Both are read back through ``schemas/result.schema.json``
(:meth:`Result.from_json`, :meth:`CellResult.from_json`, :meth:`Failure.from_json`), so an
entry of the wrong shape (an older engine's, a hand-edited or truncated file) is refused
with the path of what is wrong, never half-used.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from mkdocs_examples.schema import JSONError, validate

RESULT = "result.schema.json"  # the schema of a Result; its $defs, of the parts
IMAGE = f"{RESULT}#/$defs/image"
# A figure is embedded in its page: at most this many bytes of PNG. The schema's
# $defs/image bounds its base64 text to 4 * ceil(MAX_IMAGE_BYTES / 3) characters
MAX_IMAGE_BYTES = 5 << 20
# A recording (recordings/store.py) is read only up to this many bytes: its text and a few such figures
MAX_RECORDING = 64 << 20


def png_size(image: str) -> int:
    """Bytes of the PNG a figure holds, from its base64 text."""
    return len(image) // 4 * 3 - image[-2:].count("=")


class SiteError(Exception):
    """The site cannot be built as it is (its pages, options or templates): the message says where and what to do.

    The core's one error for a build to stop on; the MkDocs adapter raises it as MkDocs' ``PluginError``.
    """


FailureKind = Literal[
    "exception",  # an unexpected exception in a cell
    "no-exception",  # a cell tagged raises-exception raised nothing
    "raises",  # a cell raised another exception than its raises= claim names (execute/raises.py)
    "exit",  # the example called sys.exit()
    "timeout",  # it ran longer than the plugin option `timeout`
    "crash",  # its process died from a signal
    "early-exit",  # its process ended before its last cell (os._exit)
    "worker",  # it killed, stopped or signalled the engine's worker process
    "sandbox",  # it changed files of the project
    "record",  # its process ended normally, but what it recorded could not be read, or does not add up
    "figure",  # a figure it left open is not one a page can show (not a PNG, or too big)
    "not-executed",  # no cached result, and the build does not execute examples (option `execute: false`)
    "leftover",  # processes it started were still running after it ended, or its folder could not be removed
    "limit",  # it went past a limit of the plugin options (max_source, max_memory, max_files, max_output_bytes...)
]


@dataclass(frozen=True)
class Options:
    """What the engine passes to every run; all of it is part of the cache key."""

    device: str = "cpu"  # "cpu" or "cuda": which cells run, what provenance says
    seed: int = 0  # seed for random, numpy and torch before each example
    threads: int = 1  # torch intra-op threads per example: outputs independent of core count
    max_output: int = 20_000  # characters kept of one cell's output
    max_source: int = 1 << 20  # bytes of source an example may have; a larger one is refused unrun
    max_memory: int = 4096  # MiB of memory per example (RLIMIT_DATA, a memory cgroup); not on cuda; 0: none
    max_file_size: int = 256  # MiB a file the example writes may reach (RLIMIT_FSIZE), its output too; 0: none
    max_files: int = 10_000  # files and folders in its own folder, its /tmp and its /dev/shm, each; 0: none
    max_folder_size: int = 1024  # MiB its own folder may hold (a tmpfs: memory, counted by max_memory); 0: none
    max_output_bytes: int = 256 << 10  # bytes of text all its cells show together (execute/child/budget.py); 0: none
    max_figures: int = 10  # figures one cell may show; 0: no limit
    max_figures_bytes: int = 8 << 20  # bytes of PNG all its figures add up to; 0: no limit


@dataclass(frozen=True)
class CellResult:
    cell: int  # index into Example.cells
    output: str = ""  # what the cell printed: stdout and stderr, Python and C level alike
    truncated: int = 0  # characters cut from the end of `output`
    images: tuple[str, ...] = ()  # matplotlib figures, base64 PNG
    traceback: str | None = None  # the exception of a cell tagged raises-exception
    skipped: str | None = None  # "requires-cuda" when the cell was not run on this device
    seconds: float = 0.0

    def text_size(self) -> int:
        """Bytes of text the cell shows (UTF-8): its output and its traceback."""
        return len(self.output.encode()) + len((self.traceback or "").encode())

    @classmethod
    def from_json(cls, data: Any) -> CellResult:
        """The cell ``data`` describes; :class:`JSONError` unless it matches ``$defs/cell``."""
        return cls.from_valid(validate(data, f"{RESULT}#/$defs/cell"))

    @classmethod
    def from_valid(cls, data: dict[str, Any]) -> CellResult:
        """The cell ``data`` describes, once it has been validated."""
        return cls(int(data["cell"]), data["output"], int(data["truncated"]), tuple(data["images"]),
                   data["traceback"], data["skipped"], float(data["seconds"]))  # fmt: skip


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    cell: int | None = None
    line: int | None = None  # line in the example file, where known
    traceback: str | None = None  # the Python traceback, or the stack at a crash or timeout
    returncode: int | None = None  # of the example's process; negative: killed by that signal
    timeout: float | None = None  # the limit that applied, for kind "timeout"
    detail: str | None = None  # a sentence for kinds the engine detects itself ("worker", "sandbox", "limit", ...)

    @classmethod
    def from_json(cls, data: Any) -> Failure:
        """The failure ``data`` describes; :class:`JSONError` unless it is an object matching ``$defs/failure``."""
        if not isinstance(data, dict):  # the schema's failure may also be null (no failure): this one may not
            raise JSONError("expected an object: a failure")
        return cls.from_valid(validate(data, f"{RESULT}#/$defs/failure"))

    @classmethod
    def from_valid(cls, data: dict[str, Any]) -> Failure:
        """The failure ``data`` describes, once it has been validated."""

        def number(key: str, kind: type) -> Any:
            return None if data[key] is None else kind(data[key])

        return cls(data["kind"], number("cell", int), number("line", int), data["traceback"],
                   number("returncode", int), number("timeout", float), data["detail"])  # fmt: skip


@dataclass(frozen=True)
class Result:
    cells: tuple[CellResult, ...] = ()
    env: dict[str, str] = field(default_factory=dict)  # python, torch, device: the provenance line
    failure: Failure | None = None
    seconds: float = 0.0  # wall time of the example's process
    # what the run imported beyond the standard library, for the cache to check on reuse:
    # "dist:<distribution>" -> version, "file:<path under the examples folder>" -> sha256
    depends: dict[str, str] = field(default_factory=dict)
    # the sandbox's protections it ran under (settings.PROTECTIONS), set by the engine once it ran
    protections: tuple[str, ...] = ()
    # the checks that failed where their cell's holds= says they do not hold (source/holds.py): the run went on
    declared: tuple[Failure, ...] = ()
    # where the seconds of a run went beyond its cells' own (execute/pool.py: PHASES); for `make bench`,
    # not stored (nor in the schema): a result read back has none
    phases: dict[str, float] = field(default_factory=dict, compare=False, metadata={"stored": False})

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for unstored in (f.name for f in fields(self) if not f.metadata.get("stored", True)):
            del data[unstored]
        return data

    @classmethod
    def from_json(cls, data: Any) -> Result:
        """The result ``data`` describes; :class:`JSONError` naming the path of a part that does not match."""
        return cls.from_valid(validate(data, RESULT))

    @classmethod
    def from_valid(cls, data: dict[str, Any]) -> Result:
        """The result ``data`` describes, once it has been validated against ``result.schema.json``."""
        failure = data["failure"]
        return cls(
            cells=tuple(CellResult.from_valid(c) for c in data["cells"]),
            env=dict(data["env"]),
            failure=None if failure is None else Failure.from_valid(failure),
            seconds=float(data["seconds"]),
            depends=dict(data["depends"]),
            protections=tuple(data["protections"]),
            declared=tuple(Failure.from_valid(f) for f in data["declared"]),
        )
