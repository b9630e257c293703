"""Claims about errors: a cell's ``raises="Type: message"`` against the exception it shows.

A cell tagged ``raises-exception`` shows its traceback as its output; ``raises=`` says what that
traceback must end with, so that the prose's "the error names the old dtype" is checked like any
``assert``. The claim is judged on the cell's result wherever one exists: the build's own run
(fresh or from the cache, since the claim is no part of a key), and every published recording of
another torch release or device, where a mismatch is that environment's failed check
(recordings/store.py: ``current``). The run itself stays a plain fact: a recording keeps the
traceback whatever the claim says.

The text matches the exception line (``RuntimeError: ...``, after the traceback's last frame)
and what follows it, whitespace folded: from its start, ``…`` standing for any text. A claim of a
type alone (``raises="TypeError"``) matches that type with any message.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mkdocs_examples.results import CellResult
from mkdocs_examples.source.cells import Cell, Example
from mkdocs_examples.tracebacks import exception_line, message_lines

ANY = "…"  # in a claim: any text


@dataclass(frozen=True)
class Mismatch:
    """A cell whose exception is not the one its ``raises=`` names."""

    cell: Cell
    expected: str
    actual: str  # the exception line the cell shows

    def detail(self) -> str:
        """What a build log says after the example's file and the line of the cell's header."""
        return (
            f"a claim of this page no longer holds: the cell raised another error than its raises= says; fix the "
            f"code, the prose or the claim (`{ANY}` stands for any text)\n  expected: {self.expected}\n"
            f"  actual:   {self.actual}"
        )


def matches(expected: str, traceback: str) -> bool:
    """Whether ``traceback``'s exception is the one ``expected`` names (see the module's text)."""
    lines = message_lines(traceback)
    if not lines:
        return False
    shown = " ".join(" ".join(lines).split())  # the exception and its message, spaces folded
    claim = " ".join(expected.split())
    if ":" not in claim:  # a type alone
        return shown.partition(":")[0].strip() == claim
    first, *rest = (part.strip() for part in claim.split(ANY))
    if not shown.startswith(first):
        return False
    at = len(first)
    for part in rest:
        found = shown.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def mismatches(example: Example, cells: Iterable[CellResult]) -> list[Mismatch]:
    """The cells of ``cells`` (one run of ``example``) that raised, and not what their ``raises=`` names."""
    found = []
    for result in cells:
        if result.cell >= len(example.cells) or result.traceback is None:
            continue
        cell = example.cells[result.cell]
        if cell.raises is not None and not matches(cell.raises, result.traceback):
            found.append(Mismatch(cell, cell.raises, exception_line(result.traceback) or "(no exception line)"))
    return found
