"""Content-addressed store of example results.

A key covers everything known before an example runs that can change what it prints:
the code that runs and its path (``Example.key``, source/keys.py: comments are not in it), the
cells' ``holds=`` declarations where it has any (they say whether a run goes on past a failed check),
the engine (version and the source of the modules that execute),
Python, the versions of torch and the preloaded packages, the device and the run options.
What the example turns out to import (other packages, helper modules beside it) is
recorded in its result and checked when the entry is reused. Entries are written
atomically; an entry that cannot be read, or does not match ``$defs/entry`` of
``schemas/result.schema.json``, is a miss, never an error; a cache folder that cannot be
written is reported once and otherwise ignored. Since comments are not in the key, an entry
keeps the lines its outputs cite tied to tokens (:func:`lines_of`), and a result reused for a
source whose lines moved cites them as they are now (:func:`relocated`).

Nothing expires by itself: :meth:`Cache.prune` removes the entries whose keys no example of
the tree can make any more (an example deleted or edited, another engine, torch or Python),
given the keys that it can make (``mkdocs-examples cache``, cli.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import platform
from collections.abc import Iterable
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from mkdocs_examples import __version__, atomic
from mkdocs_examples.environment import package_version
from mkdocs_examples.results import RESULT, CellResult, Options, Result
from mkdocs_examples.schema import JSONError, loads, validate
from mkdocs_examples.source import keys
from mkdocs_examples.source.cells import Example

Lines = dict[str, dict[str, int]]  # a cited line: the token that covers it (source/keys.py: anchors)

# What executes examples, as a whole: a module added to one of these folders is in the key too
PACKAGE = Path(__file__).parent.parent
_EXECUTING = ("environment.py", "results.py", "source", "execute")


def engine_digest() -> str:
    """A digest of every module that reads, runs or stores an example (not of what renders it)."""
    files = sorted(file for name in _EXECUTING for file in [PACKAGE / name, *(PACKAGE / name).rglob("*.py")])
    digest = hashlib.sha256()
    for file in filter(Path.is_file, files):
        digest.update(file.relative_to(PACKAGE).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def fingerprint(options: Options, preload: list[str]) -> dict[str, Any]:
    """Everything but the example itself that goes into a key."""
    return {
        "engine": f"{__version__}+{engine_digest()}",
        "python": platform.python_version(),
        "packages": {name: package_version(name) for name in sorted({"torch", *(m.split(".")[0] for m in preload)})},
        "options": asdict(options),
    }


def cache_key(example: Example, fingerprint: dict[str, Any]) -> str:
    payload = {"path": example.path, "code": example.key, **fingerprint}
    if holds := {str(c.index): str(c.holds) for c in example.cells if c.holds is not None}:
        # where a check may fail as declared, the run goes on past it or stops (source/holds.py): a result of
        # another declaration is another run. Not in the cells' keys: a recording is judged against the declaration
        # as it is now, and the keys of an example without one stay as they are
        payload["holds"] = holds
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()



def entries(count: int) -> str:
    """``count`` entries of the cache, in words: ``1 entry``, ``4 entries``."""
    return "1 entry" if count == 1 else f"{count} entries"

class Cache:
    def __init__(self, root: Path, examples_dir: Path) -> None:
        self.root, self.examples_dir = root, examples_dir
        self.unwritable: str | None = None  # why results are not being stored, once that is known

    def _file(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> tuple[Result, Lines] | None:
        """The result stored under ``key`` and the lines it cites (:func:`lines_of`), if any is current."""
        try:
            entry = validate(loads(self._file(key).read_text(encoding="utf-8")), f"{RESULT}#/$defs/entry")
        except (OSError, UnicodeDecodeError, JSONError):
            return None
        if entry["key"] != key:
            return None
        result = Result.from_valid(entry["result"])
        return (result, entry["lines"]) if self._current(result.depends) else None

    def put(self, key: str, result: Result, lines: Lines) -> None:
        """Store ``result``: written to a temporary file, then renamed over the entry; never raises."""
        if self.unwritable:
            return
        file = self._file(key)
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            entry = {"key": key, "result": result.to_json(), "lines": lines}
            atomic.write_text(file, json.dumps(entry, sort_keys=True))
        except OSError as error:
            self.unwritable = error.strerror or str(error)

    def empty(self) -> bool:
        """Whether no result is stored here (a fresh clone's cache, or CI's)."""
        return not self.root.is_dir() or next(self.root.glob("*/*.json"), None) is None

    def files(self) -> list[Path]:
        """Every file of the cache: its entries, and any temporary file an interrupted write left."""
        return sorted(p for p in self.root.glob("*/*.json") if p.is_file()) if self.root.is_dir() else []

    def usage(self) -> tuple[int, int]:
        """How many files the cache holds, and their bytes."""
        found = self.files()
        return len(found), sum(file.stat().st_size for file in found)

    def prune(self, live: Iterable[str]) -> list[Path]:
        """Remove every file but the entries whose key is in ``live``, then the folders left empty;
        the files removed. The cache folder itself stays (it may be a link shared between checkouts)."""
        keep = set(live)
        removed = [file for file in self.files() if file.stem not in keep]
        for file in removed:
            file.unlink(missing_ok=True)
        for folder in {file.parent for file in removed}:
            with contextlib.suppress(OSError):  # not empty
                folder.rmdir()
        return removed

    def _current(self, depends: dict[str, str]) -> bool:
        """Whether every package and helper module the result depended on is as it was."""
        for name, recorded in depends.items():
            kind, _, what = name.partition(":")
            if kind == "dist" and package_version(what) != recorded:
                return False
            if kind == "file" and _digest(self.examples_dir / what) != recorded:
                return False
        return True


def lines_of(example: Example, cells: Iterable[CellResult], extra: Iterable[int | None] = ()) -> Lines:
    """The lines of ``example`` that ``cells``' outputs cite (and ``extra``), tied to tokens (source/keys.py: anchors):
    what a result or a recording keeps, so that it cites the right lines once comments move them."""
    return keys.anchors(example.source, example.display, [t for c in cells for t in (c.output, c.traceback)], extra)


def relocated(result: Result, example: Example, lines: Lines) -> Result:
    """``result``, which ran the code of ``example`` with the lines ``lines`` says, citing ``example``'s lines."""
    if not lines:
        return result
    move = keys.Relocation(example.source, example.display, lines)
    return replace(result, cells=tuple(move.cell(c) for c in result.cells))


def _digest(file: Path) -> str:
    try:
        return hashlib.sha256(file.read_bytes()).hexdigest()
    except OSError:
        return "missing"
