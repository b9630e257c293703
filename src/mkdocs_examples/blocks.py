"""Find the ``/// example | path[#cell]`` blocks of a Markdown page.

    /// example | tensors/cat_and_stack.py#shares-storage
    ///

Blocks inside fenced code are text, not blocks: a page can show the syntax.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_OPEN = re.compile(r"^(?P<indent>[ \t]*)/// *example *\|(?P<target>.*)$")
_CLOSE = re.compile(r"^[ \t]*/// *$")
_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})")
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
    lines = markdown.splitlines()
    blocks: list[Block] = []
    fence: str | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        match = _FENCE.match(line)
        if match and (fence is None or (match["fence"][0] == fence[0] and len(match["fence"]) >= len(fence))):
            fence = match["fence"] if fence is None else None
        elif fence is None and (opening := _OPEN.match(line)):
            block = _read_block(lines, index, opening)
            blocks.append(block)
            index = block.end
        index += 1
    return blocks


def replace_blocks(markdown: str, blocks: list[Block], render: Callable[[Block], str]) -> str:
    """``markdown`` with each block replaced by ``render(block)``, indented like the block."""
    lines = markdown.splitlines()
    for block in reversed(blocks):
        rendered = [block.indent + text if text else text for text in render(block).splitlines()]
        lines[block.start : block.end + 1] = rendered
    return "\n".join(lines) + "\n"


def _read_block(lines: list[str], start: int, opening: re.Match) -> Block:
    target = opening["target"].strip()
    indent = opening["indent"]
    end = next((i for i in range(start + 1, len(lines)) if _CLOSE.match(lines[i]) or _OPEN.match(lines[i])), None)
    error = None
    if end is None or _OPEN.match(lines[end]):
        end, error = start, "this example block is not closed: add a line `///` right after it"
    elif any(text.strip() for text in lines[start + 1 : end]):
        error = "an example block takes no content: write `/// example | path.py`, then `///` on the next line"
    found = _TARGET.match(target)
    if not found:
        hint = "write a path under examples/, like `tensors/cat_and_stack.py` or `tensors/cat_and_stack.py#cell-name`"
        return Block(start, end, indent, target, None, error or f"cannot read {target!r}: {hint}")
    path = found["path"]
    if path.startswith("/") or ".." in path.split("/"):
        error = error or f"{path!r} must be a path relative to the examples folder, like `tensors/cat_and_stack.py`"
    return Block(start, end, indent, path, found["cell"], error)
