"""An index of every exception the site's pages show, built from the tracebacks themselves.

A page asks for it with a marker block::

    /// error-index
    ///

and gets, in its language, one entry per distinct exception line (type and message, with
numbers and shapes folded, so ``shapes cannot be multiplied (2x3 and 4x5)`` and ``(8x5 and
3x3)`` are one entry) linking to every page and cell that shows it. Built from the results
of the same build, it cannot drift from what the pages show.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from mkdocs_examples.render.page import anchor
from mkdocs_examples.results import Result
from mkdocs_examples.source.blocks import Block, fenced_lines
from mkdocs_examples.source.cells import Example
from mkdocs_examples.texts import text as texts

MARKER = re.compile(r"^/// *error-index *\n/// *$", re.MULTILINE)


def replace_marker(markdown: str, render: Callable[[], str]) -> str:
    """``markdown`` with each marker block outside fenced code replaced by ``render()``."""
    if not MARKER.search(markdown):
        return markdown
    fenced = fenced_lines(markdown)
    starts = {markdown.count("\n", 0, m.start()) for m in MARKER.finditer(markdown)} - fenced
    lines = markdown.splitlines()
    for start in sorted(starts, reverse=True):
        lines[start : start + 2] = [render()]
    return "\n".join(lines) + "\n"


_FRAME = re.compile(r'^  File "')
_SHAPE = re.compile(r"(?<![\w.])\d+(?:x\d+)+(?![\w.])")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w])")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


@dataclass(frozen=True)
class Shown:
    """One place a traceback is shown: a page (path in its language's tree) and the cell's anchor."""

    page: str
    title: str
    anchor: str


@dataclass
class Entry:
    kind: str  # the exception's type: RuntimeError
    message: str  # folded: numbers as N
    shown: list[Shown] = field(default_factory=list)


def exception_line(traceback: str) -> str | None:
    """The line that names the exception (``Type: message``), after the last frame of ``traceback``."""
    lines = traceback.rstrip("\n").splitlines()
    last = max((i for i, line in enumerate(lines) if _FRAME.match(line)), default=-1)
    i = last + 1
    while last >= 0 and i < len(lines) and lines[i].startswith("    "):  # the frame's code and carets
        i += 1
    rest = [line for line in lines[i:] if line.strip()]
    return rest[0].strip() if rest else None


def fold(line: str) -> tuple[str, str]:
    """(type, message) of an exception line, with the numbers in the message replaced by N."""
    kind, _, message = line.partition(": ")
    message = _ADDRESS.sub("0x…", message)
    message = _SHAPE.sub(lambda m: "x".join("N" * (m[0].count("x") + 1)), message)
    return kind.strip(), _NUMBER.sub("N", message).strip()


def collect(
    pages: dict[str, tuple[str, list[Block]]], examples: dict[str, Example], results: dict[str, list[Result]]
) -> list[Entry]:
    """The entries for ``pages`` (page path: its title and blocks), sorted by type and message.

    ``results``: what each example's blocks show, this build's result and any published recording.
    """
    entries: dict[tuple[str, str], Entry] = {}
    for page, (title, blocks) in sorted(pages.items()):
        for block in blocks:
            example = examples.get(block.path)
            if example is None:
                continue
            shown_cells = {c.index for c in example.cells if block.cell in (None, c.name)}
            for cell in (cell for result in results.get(block.path, []) for cell in result.cells):
                source = example.cells[cell.cell]
                if cell.cell not in shown_cells or not cell.traceback or source.has("remove-cell"):
                    continue
                if source.has("remove-output") or not (line := exception_line(cell.traceback)):
                    continue
                key = fold(line)
                entry = entries.setdefault(key, Entry(*key))
                place = Shown(page, title, anchor(example, cell.cell))
                if place not in entry.shown:
                    entry.shown.append(place)
    return [entries[key] for key in sorted(entries)]


def render(entries: Iterable[Entry], here: str, lang: str) -> str:
    """Markdown for the index on page ``here``: a section per exception type, links relative to it."""
    entries = list(entries)
    text = texts(lang)
    pages = {shown.page for entry in entries for shown in entry.shown}
    parts = [text["index.summary"].format(errors=len(entries), pages=len(pages))]
    kind = None
    for entry in entries:
        if entry.kind != kind:
            kind = entry.kind
            named = all(p.isidentifier() for p in kind.split("."))
            parts.append(f"## `{kind}`" if named else f"## {text['index.other']}")
        by_page: dict[str, list[Shown]] = {}
        for shown in entry.shown:
            by_page.setdefault(shown.page, []).append(shown)
        links = ", ".join(_links(places, here) for places in by_page.values())
        parts.append(f"- {_code(entry.message or '(no message)')}  \n  {links}")
    return "\n\n".join(parts) + "\n"


def title_of(markdown: str, fallback: str) -> str:
    """A page's first level-one heading, as the index names it."""
    found = re.search(r"^# +(.+?) *#*$", markdown, re.MULTILINE)
    return found[1].strip() if found else fallback


def _links(places: list[Shown], here: str) -> str:
    """The page's title linking to its first cell that shows the error; its other cells by number."""
    url = posixpath.relpath(places[0].page, posixpath.dirname(here) or ".")
    more = " ".join(f"[{n}]({url}#{p.anchor})" for n, p in enumerate(places[1:], start=2))
    return f"[{_escape(places[0].title)}]({url}#{places[0].anchor})" + (f" ({more})" if more else "")


def _code(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks} {text} {ticks}" if "`" in text else f"`{text}`"


def _escape(text: str) -> str:
    return re.sub(r"([\[\]])", r"\\\1", text)
