"""A page's Markdown, read once into what the engine acts on: its fenced code, its ``/// example`` blocks,
its marker blocks of generated lists (``/// error-index``, ``/// torch-changes``), its ``quoted-error`` blocks
and its title line.

Every step of rendering a page (page_markdown.py) reads this one :class:`Markdown`, so that they cannot
disagree on what is code and what is a block; each step says what goes in place of which lines
(:class:`Replacement`), and :meth:`Markdown.replaced` makes the page of all of them in one pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from mkdocs_examples.source.blocks import Block, scan

# The generated lists a page asks for, each by an empty block of its name: ``/// error-index`` ``///``
MARKERS = ("error-index", "torch-changes")
_MARKER = re.compile(r"^/// *(?P<name>[a-z-]+) *$")
_CLOSE = re.compile(r"^/// *$")
# ``/// quoted-error | [owner/repo:]path [@ tag-or-commit]``, then one quoted line or more, then ``///``
_QUOTED = re.compile(
    r"^/// *quoted-error *\| *(?:(?P<repo>[\w.-]+/[\w.-]+):)?(?P<source>[\w./-]+)"
    r"(?: *@ *(?P<ref>[0-9a-f]{40}|v\d+\.\d+\.\d+))? *$"
)
_TITLE = re.compile(r"^#[ \t]+\S")  # an ATX heading of level 1: `# Title`


@dataclass(frozen=True)
class Marker:
    """The marker block of a generated list: its name and its first line (0-based; the block is two lines)."""

    name: str
    start: int


@dataclass(frozen=True)
class Quoted:
    """A ``quoted-error`` block: its lines (0-based, ``end`` its closing line), the file and project it quotes
    (``repo``: ``""`` where it names none) and the commit or tag after ``@`` (``""`` where none follows)."""

    start: int
    end: int
    source: str
    lines: tuple[str, ...]  # the quoted lines, stripped, blank ones left out
    ref: str = ""
    repo: str = ""


@dataclass(frozen=True)
class Replacement:
    """What goes in place of a page's lines ``start`` to ``stop`` (exclusive; equal: put before line ``start``)."""

    start: int
    stop: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Markdown:
    """One page's Markdown, parsed: what is outside fenced code is what a reader sees as blocks and markers."""

    text: str
    lines: tuple[str, ...]
    fenced: frozenset[int]  # 0-based indices of the lines of fenced code, fence lines included
    blocks: tuple[Block, ...]
    markers: tuple[Marker, ...]
    quoted: tuple[Quoted, ...]
    title: int | None  # the line of its first ``# Title`` outside code and blocks, if any

    def replaced(self, replacements: Iterable[Replacement]) -> str:
        """The page with each replacement made (the text as it is when there is none)."""
        done = sorted(replacements, key=lambda r: (r.start, r.stop))
        if not done:
            return self.text
        out: list[str] = []
        at = 0
        for replacement in done:
            out += self.lines[at : replacement.start]
            out += replacement.lines
            at = max(at, replacement.stop)
        out += self.lines[at:]
        return "\n".join(out) + "\n"


def in_place_of(block: Block, text: str) -> Replacement:
    """``text`` in place of ``block``, indented like it (a block in a list item renders inside the item)."""
    return Replacement(block.start, block.end + 1, tuple(block.indent + line if line else line
                                                          for line in text.splitlines()))  # fmt: skip


def parse(markdown: str) -> Markdown:
    """``markdown`` read once: its fenced code and example blocks (source/blocks.py), marker and quoted-error
    blocks outside code, and its title line."""
    lines = tuple(markdown.splitlines())
    blocks, fenced = scan(lines)
    markers, quoted, taken = [], [], {i for b in blocks for i in range(b.start, b.end + 1)}
    index = 0
    while index < len(lines):
        line = lines[index]
        if index in fenced or index in taken:
            pass
        elif (found := _MARKER.match(line)) and found["name"] in MARKERS and index + 1 < len(lines) \
                and _CLOSE.match(lines[index + 1]):  # fmt: skip
            markers.append(Marker(found["name"], index))
            taken |= {index, index + 1}
            index += 1
        elif (found := _QUOTED.match(line)) and (end := _quote_end(lines, index)):
            body = tuple(text.strip() for text in lines[index + 1 : end] if text.strip())
            quoted.append(Quoted(index, end, found["source"], body, found["ref"] or "", found["repo"] or ""))
            taken |= set(range(index, end + 1))
            index = end
        index += 1
    title = next((i for i, line in enumerate(lines) if i not in fenced and i not in taken and _TITLE.match(line)), None)
    return Markdown(markdown, lines, frozenset(fenced), tuple(blocks), tuple(markers), tuple(quoted), title)


def _quote_end(lines: tuple[str, ...], start: int) -> int | None:
    """The closing line of the quoted-error block opened at ``start``: after one line or more that do not start
    with ``///``; None where another ``///`` line or the page's end comes first."""
    for index in range(start + 1, len(lines)):
        if _CLOSE.match(lines[index]):
            return index if index > start + 1 else None
        if lines[index].startswith("///"):
            return None
    return None
