"""Read an example script (jupytext's percent format) into cells.

A cell starts at a line ``# %%``, optionally followed by a name and metadata::

    # %% shares-storage tags=["raises-exception"]
    # %% negative-class raises="RuntimeError: Class values must be non-negative"

``raises=`` is a claim about the error a cell raises: the line that names the exception
(``Type: message``) starts with that text, where ``…`` stands for any text (:mod:`execute.raises`
checks it on every environment). It implies the tag ``raises-exception`` and, like a name or a
display tag, changes no key. ``holds=">=2.8"`` names the torch releases where the cell's check
holds, where it fails on others (:mod:`source.holds`); ``claim="..."`` says in a sentence what that
check holds to be true (the checks line and the page of changes between releases say it), and
``alt="..."`` what the figures the cell draws show (their ``alt`` text). Both are English, translated
beside the example like its comments (:mod:`source.comments`), and change no key either.
``about="cell-name"`` names the cell a hidden check's claim is about, where a reader is sent and its
range is said (by default the cell right before it: :func:`claimed`). Code above the first marker is a
cell of its own. ``# %% [markdown]`` cells are notes for notebook readers, neither executed nor shown
on a page. A note may name its language, in jupytext's metadata syntax::

    # %% [markdown]
    # torch.cat joins tensors along a dimension they already have
    # %% [markdown] lang="zh"
    # torch.cat 沿张量已有的维度拼接

Of the notes between two code cells, a reader of a language gets those in that language, and
where there is none those that name no language (:func:`notes_for`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path, PurePosixPath

from mkdocs_examples.source import files
from mkdocs_examples.source.holds import EXAMPLE as HOLDS_EXAMPLE
from mkdocs_examples.source.holds import Holds, HoldsError
from mkdocs_examples.source.keys import cell_keys, support_digest

TAGS = {
    "raises-exception": "the cell must raise; its traceback is the output",
    "remove-cell": "run the cell, show neither code nor output (hidden assertions)",
    "remove-input": "show only the output",
    "remove-output": "show only the code",
    "requires-cuda": "run only where CUDA is available",
    "requires-<module>": "run only where that module imports (requires-torchvision: a release's own environment, "
    "where torch and torchvision match)",
    "varies": "its output is a measurement (a timing) that differs from run to run, shown as measured",
    "environment": "its output describes the machine (versions, devices): each environment's is shown as usual, "
    "but a difference is never called a change between releases",
}

_MARKER = re.compile(r"^# ?%%(?!%)(?P<rest>.*)$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_META = re.compile(r"(?P<key>[A-Za-z_][\w-]*)=")
_NON_CODE = re.compile(r"\[(markdown|md|raw)\]")
_RAISES = re.compile(r"^[A-Za-z_][\w.]*(:.*)?$")  # Type, or Type: message (a dotted type: torch.OutOfMemoryError)
_REQUIRES = re.compile(r"^requires-(?!cuda$)([A-Za-z_][A-Za-z0-9_]*)$")  # requires-<module>: an importable name
_LANG = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")  # a language as the site names it: zh, en, pt-BR


class ExampleError(Exception):
    """A problem with an example file, reported as ``path:line: message``."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path, self.line, self.message = path, line, message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Cell:
    index: int
    source: str
    lineno: int  # line of the first source line in the file (1-based)
    name: str | None = None
    tags: tuple[str, ...] = ()
    raises: str | None = None  # raises="Type: message": the start of the exception line the cell must show
    header: int | None = None  # line of its ``# %%`` marker in the file, where its tags and claim are written
    holds: Holds | None = None  # holds=">=2.8": the torch releases where its check holds (source/holds.py)
    claim: str | None = None  # claim="...": what its check holds to be true, in a sentence (English)
    alt: str | None = None  # alt="...": what its figures show, for a reader who cannot see them (English)
    about: str | None = None  # about="name": the shown cell its check's claim is about (see :func:`claimed`)
    checks: str | None = None  # the module of the cell right before it, a hidden check needs it too (see ``module``)

    def has(self, tag: str) -> bool:
        return tag in self.tags

    @property
    def module(self) -> str | None:
        """The module the cell needs (``requires-torchvision``: torchvision); it runs only where that imports. A hidden
        check (``remove-cell``) right after such a cell checks its variables: it needs the module too, untagged."""
        return next((m[1] for tag in self.tags if (m := _REQUIRES.match(tag))), self.checks)

    @property
    def output_shown(self) -> bool:
        """Whether a page shows this cell's output: not a hidden check (``remove-cell``) nor code alone
        (``remove-output``); the error index and the snapshots of outputs follow the same rule."""
        return not (self.has("remove-cell") or self.has("remove-output"))

    @property
    def compared(self) -> bool:
        """Whether this cell's output is compared across environments (the picker, the notes under it): shown, and
        not a measurement (``varies``), which differs on every run."""
        return self.output_shown and not self.has("varies")

    @property
    def tracked(self) -> bool:
        """Whether a difference in this cell's output is a change between releases (the "Checked on" line, the
        page of changes): compared, and not a description of the machine (``environment``), which every
        environment prints its own of."""
        return self.compared and not self.has("environment")


@dataclass(frozen=True)
class Note:
    """A ``# %% [markdown]`` cell: a note for notebook readers."""

    text: str  # its Markdown, without the comment signs
    lineno: int  # the line of its marker
    position: int  # how many code cells come before it: notes of one position are read together
    lang: str | None = None  # lang="zh": for readers of that language; None: for those without a note of theirs


@dataclass(frozen=True)
class Example:
    path: str  # relative to the examples folder, with forward slashes
    file: Path  # absolute path on disk
    source: str
    cells: tuple[Cell, ...] = field(default=())
    folder: str = "examples"  # the examples folder as the site names it (plugin option `examples_dir`)
    support: str = ""  # the digest of the examples folder's other files (source/keys.py: support_digest)

    @cached_property  # read for every cell a page shows, every recording and every notebook: computed once
    def keys(self) -> tuple[str, ...]:
        """Each cell's key: the code that runs up to it (source/keys.py, the one key every part uses)."""
        return cell_keys(self.path, ((c.source, c.tags) for c in self.cells), self.support)

    @property
    def key(self) -> str:
        """The key of the whole example: its last cell's, which chains through every cell."""
        return self.keys[-1] if self.keys else cell_keys(self.path, [("", ())], self.support)[0]

    @classmethod
    def from_source(cls, path: str, file: Path, source: str, folder: str = "examples", support: str = "") -> Example:
        return cls(path, file, source, parse_cells(source, f"{folder}/{path}"), folder, support)

    @cached_property
    def notes(self) -> tuple[Note, ...]:
        return parse_notes(self.source, self.display)

    @property
    def display(self) -> str:
        """The name tracebacks and messages use: ``examples/<path>``, as a contributor finds it."""
        return f"{self.folder}/{self.path}"

    def cell(self, name: str) -> Cell:
        for cell in self.cells:
            if cell.name == name:
                return cell
        names = ", ".join(c.name for c in self.cells if c.name) or "none"
        raise ExampleError(self.display, None, f"no cell named {name!r} (named cells: {names})")


def read_example(root: Path, path: str, folder: str = "examples", support: str | None = None) -> Example:
    """Read ``root/path`` into an :class:`Example`; raise ExampleError when it is refused or malformed.

    The one gate every example passes, from a page or the CLI, with the plugin enabled or
    not: a file that is refused here is never read, let alone run. ``support``: the folder's
    :func:`support_digest`, where the caller reads many examples of it at once; read here otherwise.
    """
    file = resolve_example(root, path, folder)
    display = f"{folder}/{path}"
    data = file.read_bytes()
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ExampleError(
            display, line, f"is not UTF-8 text (byte 0x{data[error.start]:02x}); save the file as UTF-8"
        ) from None
    if refused := files.misleading(data, source):
        raise ExampleError(display, *refused)
    return Example.from_source(path, file, source, folder, support_digest(root) if support is None else support)


def resolve_example(root: Path, path: str, folder: str = "examples") -> Path:
    """The real file of example ``path`` under ``root``, after checking that it may be run."""
    display = f"{folder}/{path}"
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or "\\" in path:
        raise ExampleError(display, None, f"an example is named by its path inside {folder}/, like `intro/first.py`")
    if pure.suffix != ".py":
        raise ExampleError(display, None, "an example must be a Python file ending in .py")
    base = root.resolve()
    for part in range(1, len(pure.parts) + 1):  # the file and every folder of its path under the examples folder
        if (link := base.joinpath(*pure.parts[:part])).is_symlink():
            which = "" if part == len(pure.parts) else f" (its folder {folder}/{link.relative_to(base)} is a link)"
            raise ExampleError(display, None, f"is a symlink to {(base / pure).resolve()}{which}: {folder}/ holds "
                               "the examples themselves, never a link; put the file itself there")  # fmt: skip
    file = base / pure
    if not file.is_file():
        raise ExampleError(display, None, f"no such example file in {folder}/")
    return file


def find_examples(examples_dir: Path, paths: list[Path]) -> list[str]:
    """Example paths relative to ``examples_dir`` for files and folders given on the command line."""
    chosen: list[Path] = []
    for path in paths or [examples_dir]:
        path = path.parent.resolve() / path.name  # a link is checked where it points when it is read
        if not path.is_relative_to(examples_dir):
            raise ValueError(f"{path} is not inside the examples folder {examples_dir}")
        if path.is_dir():
            chosen += sorted(p for p in path.rglob("*.py") if not p.name.startswith("_"))
        elif path.is_file():
            chosen.append(path)
        else:
            raise ValueError(f"no such example file or folder: {path}")
    return [p.relative_to(examples_dir).as_posix() for p in chosen]


def split_chunks(source: str) -> list[tuple[int, str, list[str]]]:
    """The file cut at its ``# %%`` markers: (marker line, or 0 above the first; header; lines)."""
    chunks: list[tuple[int, str, list[str]]] = [(0, "", [])]
    for number, line in enumerate(source.splitlines(), start=1):
        match = _MARKER.match(line)
        if match:
            chunks.append((number, match["rest"].strip(), []))
        else:
            chunks[-1][2].append(line)
    return chunks


def is_code(header: str) -> bool:
    """Whether a chunk with this header is code (not ``[markdown]``, ``[md]`` or ``[raw]``)."""
    return not _NON_CODE.search(header)


def parse_cells(source: str, display: str = "<example>") -> tuple[Cell, ...]:
    cells: list[Cell] = []
    seen: dict[str, int] = {}
    for marker_line, header, lines in split_chunks(source):
        if not is_code(header):
            _note_language(header, display, marker_line)  # a malformed note is refused with the file
            continue
        name, tags, raises, holds, words = _parse_header(header, display, marker_line)
        first = next((i for i, text in enumerate(lines) if text.strip()), None)
        if first is None:
            if marker_line and (name or tags):
                raise ExampleError(display, marker_line, "this cell has a header but no code")
            continue
        body = "\n".join(lines[first:]).rstrip() + "\n"
        if name in seen:
            raise ExampleError(display, marker_line, f"cell name {name!r} is already used at line {seen[name]}")
        if name:
            seen[name] = marker_line
        cells.append(Cell(len(cells), body, marker_line + first + 1, name, tags, raises, marker_line or None, holds,
                          words.get("claim"), words.get("alt"), words.get("about")))
    for index, cell in enumerate(cells):  # the module a hidden check's cell needs: the key holds it, by that cell's tag
        before = cells[index - 1] if index else None
        if before is not None and before.module and cell.has("remove-cell") and cell.module is None:
            cells[index] = replace(cell, checks=before.module)
    for cell in cells:  # about= names a cell a page shows, before or after it
        if cell.about is not None and not any(c.name == cell.about and not c.has("remove-cell") for c in cells):
            raise ExampleError(display, cell.header, f"about={cell.about!r} names no cell a page shows; name one "
                               f"(named cells: {', '.join(c.name for c in cells if c.name) or 'none'})")  # fmt: skip
    return tuple(cells)


def claimed(example: Example, cell: Cell) -> Cell | None:
    """The shown cell the claim of ``cell``'s check is about: the one its ``about=`` names; itself where a page shows
    it; else, for a hidden check (``remove-cell``), the cell right before it where a page shows that one; None where
    no shown cell is named (a check of text the page quotes): its range is said in the checks line only."""
    if cell.about is not None:
        return next((c for c in example.cells if c.name == cell.about), None)
    if not cell.has("remove-cell"):
        return cell
    before = example.cells[cell.index - 1] if cell.index > 0 else None
    return before if before is not None and not before.has("remove-cell") else None


def parse_notes(source: str, display: str = "<example>") -> tuple[Note, ...]:
    """The notes of an example (``# %% [markdown]`` cells with text), in order."""
    notes: list[Note] = []
    position = 0
    for marker_line, header, lines in split_chunks(source):
        if is_code(header):
            position += any(line.strip() for line in lines)
            continue
        text = "\n".join(line.removeprefix("#").removeprefix(" ") for line in lines).strip("\n")
        if text.strip():
            notes.append(Note(text, marker_line, position, _note_language(header, display, marker_line)))
    return tuple(notes)


def notes_for(notes: tuple[Note, ...], lang: str) -> tuple[Note, ...]:
    """The notes a reader of ``lang`` gets: of the notes of each position, those in ``lang``, else those in none."""
    chosen: list[Note] = []
    for position in dict.fromkeys(note.position for note in notes):
        here = [note for note in notes if note.position == position]
        chosen += [n for n in here if n.lang == lang] or [n for n in here if n.lang is None]
    return tuple(chosen)


def _note_language(header: str, display: str, line: int) -> str | None:
    """The language a note's header names (``[markdown] lang="zh"``), None for none."""
    meta = _META.search(header)
    values = _parse_metadata(header[meta.start() :], display, line, 'lang="zh"') if meta else {}
    unknown = sorted(set(values) - {"lang"})
    if unknown:
        raise ExampleError(display, line, f'a note takes only lang= (e.g. lang="zh"), not {unknown[0]}=')
    lang = values.get("lang")
    if lang is not None and not (isinstance(lang, str) and _LANG.match(lang)):
        raise ExampleError(display, line, f'lang= names a language as the site does, e.g. lang="zh", not {lang!r}')
    return lang


def _parse_metadata(rest: str, display: str, line: int, example: str) -> dict[str, object]:
    """A header's ``key=<JSON>`` pairs (jupytext's cell metadata), by key."""
    decoder = json.JSONDecoder()
    values: dict[str, object] = {}
    while rest:
        match = _META.match(rest)
        if not match:
            raise ExampleError(display, line, f"cannot read cell metadata {rest!r}; write e.g. {example}")
        try:
            values[match["key"]], end = decoder.raw_decode(rest, match.end())
        except json.JSONDecodeError:
            raise ExampleError(display, line, f"metadata {match['key']}= must be JSON, e.g. {example}") from None
        rest = rest[end:].strip()
    return values


def _parse_header(
    header: str, display: str, line: int
) -> tuple[str | None, tuple[str, ...], str | None, Holds | None, dict[str, str]]:
    tags: tuple[str, ...] = ()
    raises: str | None = None
    holds: Holds | None = None
    words: dict[str, str] = {}  # claim=, alt=: sentences a reader reads
    meta_start = _META.search(header)
    title = header[: meta_start.start()].strip() if meta_start else header
    if meta_start:
        values = _parse_metadata(header[meta_start.start() :], display, line, 'tags=["remove-cell"]')
        unknown_keys = sorted(set(values) - {"tags", "raises", "holds", "about", *WORDS})
        if unknown_keys:
            raise ExampleError(display, line, f"unknown cell metadata {unknown_keys[0]}=; a cell takes tags=, "
                               'raises= (e.g. raises="RuntimeError: Class values must be non-negative"), '
                               f"{HOLDS_EXAMPLE} with its claim= and about=, and alt=")
        if "tags" in values:
            value = values["tags"]
            if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
                raise ExampleError(display, line, "tags must be a list of strings")
            unknown = [t for t in value if t not in TAGS and not _REQUIRES.match(t)]
            if unknown:
                raise ExampleError(display, line, f"unknown tag {unknown[0]!r}; known tags: {', '.join(TAGS)}")
            tags = tuple(value)
            if len([t for t in tags if t.startswith("requires-")]) > 1:
                raise ExampleError(display, line, "a cell takes one requires- tag: split it into cells, one for each")
        if "raises" in values:
            raises = _raises(values["raises"], display, line)
            if "raises-exception" not in tags:  # raises= alone says the cell must raise: the tag, as if written
                tags = (*tags, "raises-exception")
        if "holds" in values:
            holds = _holds(values["holds"], display, line)
        words = {key: _words(key, values[key], display, line) for key in WORDS if key in values}
        if "about" in values:
            if not isinstance(values["about"], str) or not _NAME.match(values["about"]):
                raise ExampleError(display, line, f"about= names a cell of this example, not {values['about']!r}")
            words["about"] = values["about"]
        for key in ("claim", "about"):
            if key in words and holds is None:
                raise ExampleError(display, line, f"{key}= goes with the releases where the check holds: give the "
                                   f"cell its range ({HOLDS_EXAMPLE}), or leave {key}= out")  # fmt: skip
    if not title:
        return None, tags, raises, holds, words
    if not _NAME.match(title):
        raise ExampleError(display, line, f"cell name {title!r} must be one word of letters, digits, '-' or '_'")
    return title, tags, raises, holds, words


# The header's sentences for readers, what each is for (messages say it), and the longest each may be
WORDS = {"claim": ("what the check holds to be true", 200), "alt": ("what the cell's figures show", 300)}


def _words(key: str, value: object, display: str, line: int) -> str:
    """The text of a ``claim=`` or ``alt=``: one line of prose, at most its length; Markdown's code spans (between
    backticks) are the only markup it may hold."""
    what, longest = WORDS[key]
    if not isinstance(value, str) or not value.strip() or "\n" in value or len(value) > longest:
        raise ExampleError(display, line, f"{key}= says {what} in one line of at most {longest} characters, "
                           f"not {value!r}")  # fmt: skip
    if found := re.search(r"[<>]", value):
        raise ExampleError(display, line, f"{key}= is plain text (code between backticks), without {found[0]!r}")
    return " ".join(value.split())


def _holds(value: object, display: str, line: int) -> Holds:
    """The range of a ``holds=`` declaration (source/holds.py)."""
    if not isinstance(value, str):
        raise ExampleError(display, line, f"holds= is a string of torch releases, e.g. {HOLDS_EXAMPLE}, not {value!r}")
    try:
        return Holds.parse(value)
    except HoldsError as error:
        raise ExampleError(display, line, str(error)) from None


def _raises(value: object, display: str, line: int) -> str:
    """The text of a ``raises=`` claim: ``Type`` or ``Type: message``, one line."""
    if not isinstance(value, str) or not _RAISES.match(value.strip()) or "\n" in value:
        raise ExampleError(display, line, "raises= names the exception as Python prints it, on one line, e.g. "
                           f'raises="RuntimeError: Class values must be non-negative", not {value!r}')
    return value.strip()
