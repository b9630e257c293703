"""Find the ``/// example | path[#cell]`` blocks of a Markdown page.

    /// example | tensors/cat_and_stack.py#shares-storage
    ///

Blocks inside fenced code are text, not blocks: a page can show the syntax. Every other
line that looks like an attempt at a block (a missing ``|``, ``Example``, ``////``, a tab
before it, a block swallowed by a fence that is never closed) is returned as a block with
an error, so that it fails a strict build instead of reaching the page as raw text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_OPEN = re.compile(r"^(?P<indent>[ \t]*)/// *example *\|(?P<target>.*)$")
_CLOSE = re.compile(r"^[ \t]*/// *$")
_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})")
_ATTEMPT = re.compile(r"^\s*/{2,}\s*example\b", re.IGNORECASE)  # what a mistyped opening line looks like
_SYNTAX = "write `/// example | path.py` (or `path.py#cell-name`), then `///` on the next line"
_TARGET = re.compile(r"^(?P<path>[\w./-]+\.py)(?:#(?P<cell>[A-Za-z0-9][\w-]*))?$")


@dataclass(frozen=True)
class Block:
    start: int  # 0-based index of the opening line
    end: int  # 0-based index of the closing line (== start when unclosed)
    indent: str
    path: str
    cell: str | None = None
    error: str | None = None  # what is wrong with the block itself, if anything

    @property
    def line(self) -> int:
        return self.start + 1


def find_blocks(markdown: str) -> list[Block]:
    return scan(markdown.splitlines())[0]


def fenced_lines(markdown: str) -> set[int]:
    """The 0-based indices of the lines inside fenced code, fence lines included."""
    return scan(markdown.splitlines())[1]


def scan(lines: Sequence[str]) -> tuple[list[Block], set[int]]:
    """The blocks of a page's ``lines`` and the indices of its lines of fenced code, read in one pass (a page
    read once: source/markdown.py)."""
    blocks: list[Block] = []
    fenced: set[int] = set()
    fence: str | None = None
    fence_line = 0
    in_fence: list[int] = []  # attempts at blocks inside the current fence
    index = 0
    while index < len(lines):
        line = lines[index]
        match = _FENCE.match(line)
        if fence is not None:
            fenced.add(index)
        if match and (fence is None or (match["fence"][0] == fence[0] and len(match["fence"]) >= len(fence))):
            fenced.add(index)
            fence, fence_line, in_fence = (match["fence"], index, []) if fence is None else (None, 0, [])
        elif fence is not None:
            if _ATTEMPT.match(line):
                in_fence.append(index)
        elif opening := _OPEN.match(line):
            block = _read_block(lines, index, opening)
            blocks.append(block)
            index = block.end
        elif _ATTEMPT.match(line):
            blocks.append(_mistyped(line, index))
        index += 1
    for swallowed in in_fence:  # the fence never closed: these would be shown as code
        message = f"this example block is inside the code fence opened at line {fence_line + 1}, which is never closed"
        blocks.append(Block(swallowed, swallowed, "", "", None, message))
    return sorted(blocks, key=lambda block: block.start), fenced


def _mistyped(line: str, index: int) -> Block:
    indent = line[: len(line) - len(line.lstrip())]
    return Block(index, index, indent.replace("\t", "    "), "", None, f"cannot read {line.strip()!r}: {_SYNTAX}")


def _read_block(lines: Sequence[str], start: int, opening: re.Match) -> Block:
    target = opening["target"].strip()
    indent = opening["indent"]
    if "\t" in indent:
        return Block(
            start, start, indent.replace("\t", "    "), target, None, "indent example blocks with spaces, not tabs"
        )
    end = next((i for i in range(start + 1, len(lines)) if _CLOSE.match(lines[i]) or _OPEN.match(lines[i])), None)
    error = None
    if end is None or _OPEN.match(lines[end]):
        end, error = start, "this example block is not closed: add a line `///` right after it"
    elif any(text.strip() for text in lines[start + 1 : end]):
        error = "an example block takes no content: write `/// example | path.py`, then `///` on the next line"
    found = _TARGET.match(target)
    if not found:
        hint = (
            "write the path of a .py file in the examples folder, like `intro/first.py` or `intro/first.py#cell-name`"
        )
        return Block(start, end, indent, target, None, error or f"cannot read {target!r}: {hint}")
    return Block(start, end, indent, found["path"], found["cell"], error)  # the path is checked when read
