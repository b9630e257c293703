"""Every check's declared range (``holds=``, source/holds.py) against what each release recorded.

A check runs in every environment: the build's own, and each published recording of the same
source. Where it ran as it is now, it held or failed there (an assertion, a cell that had to raise
and did not, or a ``raises=`` claim another exception contradicts). The declaration must say
exactly that: a release inside its range where the check fails, a release outside it where the
check holds, or a failure on a cell that declares nothing is a *problem*, which fails the strict
build naming the example, the cell's line and the releases. A release where the cell never ran as
it is now (its recording is stale there, or an earlier failure stopped the run) says nothing, nor
does a recording on another device than the build's (a GPU): a range names releases.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from mkdocs_examples.execute import raises
from mkdocs_examples.recordings.store import Recording, release
from mkdocs_examples.render.attribution import version_key
from mkdocs_examples.results import Result
from mkdocs_examples.source.cells import Cell, Example
from mkdocs_examples.source.holds import EXAMPLE


@dataclass(frozen=True)
class Verdict:
    """What the environments say of one cell's check: the releases where it failed (with what it said there), and
    those where it ran and held."""

    cell: Cell
    fails: dict[str, str] = field(default_factory=dict)  # release: the failure's last line there
    held: frozenset[str] = frozenset()  # releases where it ran as it is now and did not fail

    def problem(self, example: Example) -> str | None:
        """What is wrong with the cell's declaration, as a build message; None where it matches."""
        cell, holds = self.cell, self.cell.holds
        where = f"{example.display}:{cell.header or cell.lineno}"
        name = f"cell `{cell.name}`" if cell.name else f"the cell at line {cell.header or cell.lineno}"
        if holds is None:
            if not self.fails:
                return None
            message = next(iter(self.fails.values()))
            return (f"{where}: the check of {name} fails on torch {_listed(self.fails)} ({message}), and no holds= "
                    f"declares it. Where the claim is true on some releases only, say which in the cell's `# %%` "
                    f"line ({EXAMPLE}) and let the prose say so; otherwise fix the code, the prose or the check")
        inside = {r: m for r, m in self.fails.items() if holds.covers(r)}
        outside = {r for r in self.held if not holds.covers(r)}
        found = []
        if inside:
            found.append(f"it fails on torch {_listed(inside)} ({next(iter(inside.values()))}), inside that range")
        if outside:
            found.append(f"it holds on torch {_listed(outside)} too, outside that range")
        if not found:
            return None
        return (f'{where}: holds="{holds}" of {name} does not match the recordings: {"; ".join(found)}. Change the '
                "range (and the prose that states it), or fix the code or the check")

    @property
    def failed(self) -> list[str]:
        """The releases where its check failed, oldest first."""
        return sorted(self.fails, key=version_key)


def verdicts(example: Example, result: Result | None, recordings: Iterable[Recording]) -> list[Verdict]:
    """What the build's ``result`` (None: not run) and ``recordings`` (what holds of each for the example as it is
    now: recordings/store.py, ``current``) say of each cell that declares a range or failed somewhere."""
    fails: dict[int, dict[str, str]] = {}
    held: dict[int, set[str]] = {}

    def seen(cells: Iterable[int], failed: dict[int, str], torch: str) -> None:
        version = release(torch)
        for index in cells:
            if index in failed:
                fails.setdefault(index, {}).setdefault(version, failed[index])
            else:
                held.setdefault(index, set()).add(version)

    if result is not None and "torch" in result.env:
        stop = result.failure.cell if result.failure is not None else None
        failed = {f.cell: _message(f.traceback or f.kind) for f in result.declared if f.cell is not None}
        failed.update({m.cell.index: m.actual for m in raises.mismatches(example, result.cells)})
        ran = [c.cell for c in result.cells if c.skipped is None and (stop is None or c.cell < stop)]
        seen(ran, failed, result.env["torch"])
    for recording in recordings:
        if result is not None and recording.device != result.env.get("device", recording.device):
            continue  # a declaration is about the releases of the build's device (a GPU may fail where a CPU holds)
        failed = {f.cell: f.message for f in (*recording.declared, *([recording.failed] if recording.failed else []))}
        seen([c.cell for c in recording.cells if c.skipped is None], failed, recording.env.get("torch", "?"))
    found = []
    for cell in example.cells:
        if cell.holds is not None or cell.index in fails:
            found.append(Verdict(cell, fails.get(cell.index, {}), frozenset(held.get(cell.index, ()))))
    return found


def problems(example: Example, result: Result | None, recordings: Iterable[Recording]) -> list[str]:
    """Each cell of ``example`` whose declaration the environments contradict, as a build message."""
    return [p for v in verdicts(example, result, recordings) if (p := v.problem(example))]


def _message(traceback: str) -> str:
    lines = traceback.strip().splitlines()
    return lines[-1][:1000] if lines else traceback


def _listed(releases: Iterable[str]) -> str:
    return ", ".join(sorted(set(releases), key=version_key))
