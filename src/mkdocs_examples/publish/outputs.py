"""``outputs`` and ``diff``: what every example printed in a build, and what a change moved.

    python -m mkdocs_examples outputs --out head.json        # run (or take from the cache) every example
    python -m mkdocs_examples diff base.json head.json      # Markdown: the cells whose output changed

A pull request's check runs ``outputs`` on the pull request and on its base, then ``diff``
tells reviewers which outputs the change moved, cell by cell, before anyone opens a page.
A snapshot is one JSON file in the format of ``schemas/snapshot.schema.json``; in short::

    {"schema": 1, "env": {"torch": "2.13.0+cpu", ...},
     "examples": {"tensors/cat_and_stack.py": {
        "keys": ["<cell 0's key>", ...], "origin": "run", "failure": null, "pages": ["en/tensors/cat-and-stack.md"],
        "cells": [{"cell": 0, "name": "setup", "line": 5, "hidden": false, "output": ["line\\n"],
                   "traceback": null, "images": ["<sha256 of the PNG>"], "skipped": null}]}}}

Cells are matched by name, or by position when unnamed. A snapshot is read as untrusted
input, through its schema: what ``diff`` prints outside a code fence (paths, page and cell
names) matches the schema's patterns, and every text is fenced.
"""

from __future__ import annotations

import difflib
import hashlib
import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs_examples.execute.engine import Outcome, describe
from mkdocs_examples.recordings.attest import Change as RecordingChange
from mkdocs_examples.render.fences import fence
from mkdocs_examples.render.provenance import inline
from mkdocs_examples.schema import JSONError, loads, validate
from mkdocs_examples.source.blocks import find_blocks

SCHEMA = 1  # the version a snapshot names, and the schema's "const"
_LIMIT = 60  # diff lines shown per cell; the rest is counted


class SnapshotError(ValueError):
    """A snapshot file that cannot be read, named by its path."""


def embedding(docs_dir: Path) -> dict[str, list[str]]:
    """The pages (``<lang>/<path>.md`` under ``docs_dir``) that embed each example."""
    pages: dict[str, list[str]] = {}
    for page in sorted(docs_dir.rglob("*.md")) if docs_dir.is_dir() else []:
        name = page.relative_to(docs_dir).as_posix()
        for block in find_blocks(page.read_text(encoding="utf-8", errors="replace")):
            if block.error is None and name not in pages.setdefault(block.path, []):
                pages[block.path].append(name)
    return pages


def snapshot(outcomes: list[Outcome], env: dict[str, str], pages: dict[str, list[str]]) -> dict[str, Any]:
    """The JSON snapshot of a set of outcomes."""
    return {
        "schema": SCHEMA,
        "env": env,
        "examples": {o.example.path: _example(o, pages.get(o.example.path, [])) for o in outcomes},
    }


def _example(outcome: Outcome, pages: list[str]) -> dict[str, Any]:
    cells = {c.index: c for c in outcome.example.cells}
    return {
        "keys": list(outcome.example.keys),
        "origin": "run" if outcome.origin == "run" else "cached",
        "failure": describe(outcome) if outcome.failure else None,
        "pages": pages,
        "cells": [
            {
                "cell": r.cell,
                "name": cells[r.cell].name,
                "line": cells[r.cell].lineno,
                "hidden": not cells[r.cell].output_shown,
                "output": r.output.splitlines(keepends=True),
                "traceback": r.traceback.splitlines(keepends=True) if r.traceback is not None else None,
                "images": [hashlib.sha256(image.encode()).hexdigest() for image in r.images],
                "skipped": r.skipped,
            }
            for r in outcome.result.cells
        ],
    }


# Reading a snapshot back, field by field


@dataclass(frozen=True)
class Cell:
    key: str  # the name, or "#<position>"
    line: int
    hidden: bool
    text: tuple[str, ...]  # output, then the traceback: what the reader sees, line by line
    images: tuple[str, ...]
    skipped: str | None


@dataclass(frozen=True)
class Snapshot:
    env: dict[str, str]
    examples: dict[str, dict[str, Any]]  # path -> keys, origin, failure, pages, cells (by name)


def read(file: Path) -> Snapshot:
    """The snapshot in ``file``; :class:`SnapshotError` naming the file and what does not match its schema."""
    try:
        data = validate(loads(file.read_text(encoding="utf-8")), "snapshot.schema.json")
    except (OSError, UnicodeDecodeError, JSONError) as error:
        raise SnapshotError(f"{file}: not a readable snapshot ({error})") from None
    return Snapshot(dict(data["env"]), {path: _read_example(value) for path, value in data["examples"].items()})


def _read_example(data: dict[str, Any]) -> dict[str, Any]:
    cells: dict[str, Cell] = {}
    for position, raw in enumerate(data["cells"]):
        key = raw["name"] if raw["name"] is not None else f"#{position}"
        text = tuple(raw["output"]) + tuple(raw["traceback"] or ())
        cells[key] = Cell(key, int(raw["line"]), raw["hidden"], text, tuple(raw["images"]), raw["skipped"])
    return {"keys": tuple(data["keys"]), "origin": data["origin"], "failure": data["failure"], "pages": data["pages"],
            "cells": cells}  # fmt: skip


# The report


@dataclass(frozen=True)
class Change:
    example: str
    cell: str  # the cell's key
    line: int
    hidden: bool
    diff: list[str]  # unified diff lines of the text, may be empty when only images changed
    images: str | None  # a sentence when figures changed
    renumbered: bool  # only line numbers moved (in tracebacks and warnings): the code above it grew or shrank


def changes(old: Snapshot, new: Snapshot) -> list[Change]:
    """Every cell present in both snapshots whose text, figures or skip reason differ."""
    found = []
    for path in sorted(set(old.examples) & set(new.examples)):
        before, after = old.examples[path]["cells"], new.examples[path]["cells"]
        for key, cell in after.items():
            was = before.get(key)
            if was is None or (was.text, was.images, was.skipped) == (cell.text, cell.images, cell.skipped):
                continue
            a = list(was.text) + ([f"(skipped: {was.skipped})\n"] if was.skipped else [])
            b = list(cell.text) + ([f"(skipped: {cell.skipped})\n"] if cell.skipped else [])
            diff = [line if line.endswith("\n") else line + "\n" for line in _unified(a, b)]
            images = None
            if was.images != cell.images:
                images = f"figures: {len(was.images)} before, {len(cell.images)} now, not the same images"
            renumbered = not images and was.skipped == cell.skipped and _numberless(was.text) == _numberless(cell.text)
            found.append(Change(path, key, cell.line, cell.hidden, diff, images, renumbered))
    return found


# Pairs of lines difflib may compare in one cell's diff: its matcher is quadratic at worst (5,000 lines
# printed again each followed by a new one took it 12 s, and a snapshot is a pull request's own data)
_DIFF_WORK = 250_000


def _unified(a: list[str], b: list[str], context: int = 2) -> list[str]:
    """The hunks of ``difflib.unified_diff(a, b, n=context)`` (without its two file lines), in linear time.

    The lines ``a`` and ``b`` share at their start and at their end are matched first, in one pass, as
    GNU diff does; difflib matches the lines between where they are few (at most ``_DIFF_WORK`` pairs),
    and more are shown as one change that removes the old lines and adds the new.
    """
    both = min(len(a), len(b))
    head = next((i for i in range(both) if a[i] != b[i]), both)
    tail = next((i for i in range(both - head) if a[-1 - i] != b[-1 - i]), both - head)
    old, new = a[head : len(a) - tail], b[head : len(b) - tail]
    if len(old) * len(new) <= _DIFF_WORK:
        middle = difflib.SequenceMatcher(None, old, new).get_opcodes()
    else:
        middle = [("replace", 0, len(old), 0, len(new))]
    ops = [("equal", 0, head, 0, head)] if head else []
    ops += [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in middle]
    ops += [("equal", len(a) - tail, len(a), len(b) - tail, len(b))] if tail else []
    out = []
    for group in _grouped(ops, context):
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, i1, i2, j1, j2 in group:
            out += [" " + line for line in a[i1:i2]] if tag == "equal" else []
            out += ["-" + line for line in a[i1:i2]] if tag in ("replace", "delete") else []
            out += ["+" + line for line in b[j1:j2]] if tag in ("replace", "insert") else []
    return out


def _grouped(ops: list[tuple[str, int, int, int, int]], context: int) -> list[list[tuple[str, int, int, int, int]]]:
    """``ops`` in hunks with ``context`` equal lines around each change, as ``SequenceMatcher.get_grouped_opcodes``."""
    if ops and ops[0][0] == "equal":
        tag, i1, i2, j1, j2 = ops[0]
        ops[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if ops and ops[-1][0] == "equal":
        tag, i1, i2, j1, j2 = ops[-1]
        ops[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    groups, group = [], []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 > 2 * context:  # a long run of equal lines ends a hunk
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            groups.append(group)
            group, i1, j1 = [], max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def _range(start: int, stop: int) -> str:
    """Lines ``start`` to ``stop`` (0-based, exclusive) as a unified diff's hunk header names them, as difflib does."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


_NUMBERS = re.compile(r"(line |\.py:)\d+")


def _numberless(text: tuple[str, ...]) -> list[str]:
    return [_NUMBERS.sub(r"\1#", line) for line in text]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _names(paths: list[str]) -> str:
    return ", ".join(f"`{p}`" for p in paths)


def report(
    old: Snapshot, new: Snapshot, *, base: str = "main", stale: list[str] | None = None,
    recordings: list[RecordingChange] | None = None, preview: str = "", default_lang: str = "en",
) -> str:  # fmt: skip
    """A Markdown report for a pull request's job summary (or a terminal); ``recordings``: the files under
    recordings/ the change adds, edits or removes (recordings/attest.py: :func:`~attest.changes`); ``preview``: the
    address of the change's built site, to link each new example's pages (``default_lang``'s at its root)."""
    out = [*_ran(new), "", f"## Outputs compared with {base}", "", *_compared(old, new, base)]
    for path in sorted(set(new.examples) - set(old.examples)):
        out += ["", *_new_example(path, new.examples[path], preview, default_lang)]
    if stale is not None:
        out += ["", "## CUDA recordings", ""]
        if stale:
            out.append(
                "This change makes cells of these CUDA recordings stale (it changes the code they ran, not only "
                "comments): their pages show no CUDA output for those cells until the GPU workflow records them "
                f"again after the merge: {', '.join(stale)}."
            )
        else:
            out.append("No CUDA recording is made stale by this change.")
    if recordings is not None:
        out += ["", "## Recordings this change adds or edits", "", *_recordings(recordings, base)]
    return "\n".join(out) + "\n"


def _recordings(found: list[RecordingChange], base: str) -> list[str]:
    """Each file of recordings/ the change touches; of a recording, whether a key that ``base`` trusts signs it."""
    if not found:
        return ["None: no file under `recordings/` changes."]
    attested = [c for c in found if c.verdict and c.verdict.attested]
    unverified = [c for c in found if c.kind == "recording" and c.status != "removed" and c not in attested]
    out = [f"{_plural(len(found), 'file')} under `recordings/`: {len(attested)} attested (signed by a key {base} "
           f"trusts), **{len(unverified)} unverified**." if unverified else
           f"{_plural(len(found), 'file')} under `recordings/`: {len(attested)} attested (signed by a key {base} "
           "trusts), none unverified."]  # fmt: skip
    if unverified:
        out.append("A strict build fails on an unverified recording, and any other build labels its outputs "
                   "'unverified': ask who made it, or let the workflow record it again.")
    out.append("")
    for change in found:
        name = f"<code>{inline(change.path)}</code> ({change.status})"
        if change.problem:
            out.append(f"- {name}: **unreadable**: {inline(change.problem[:300])}")
        elif change.kind == "signers":
            out.append(f"- {name}: **changes the keys whose recordings are trusted**; review it as code")
        elif change.kind != "recording" or change.status == "removed":
            out.append(f"- {name}")
        elif change.verdict and change.verdict.attested and change.verdict.signer:
            signer = change.verdict.signer
            out.append(f"- {name}: attested, signed by {inline(signer.name)} ({signer.role})")
        else:
            out.append(f"- {name}: **unverified**: {inline(change.verdict.why if change.verdict else '?')}")
    return out


def _ran(new: Snapshot) -> list[str]:
    ran = sorted(p for p, e in new.examples.items() if e["origin"] == "run")
    failed = sorted(p for p, e in new.examples.items() if e["failure"])
    cached = len(new.examples) - len(ran)
    out = ["## Examples", "", f"{len(new.examples)} examples: {len(ran)} ran, {cached} came from the cache"]
    out[-1] += f", **{len(failed)} failed**." if failed else "."
    if ran:
        out += ["", f"Ran (new, changed, or not in this runner's cache): {_names(ran)}"]
    for path in failed:
        out += ["", f"**`{path}` failed:**", "", *_fence(new.examples[path]["failure"].splitlines(keepends=True))]
    return out


def _compared(old: Snapshot, new: Snapshot, base: str) -> list[str]:
    out = []
    was, now = (f"torch {s.env.get('torch')} on Python {s.env.get('python')}" for s in (old, new))
    if was != now:
        out += [f"{base} ran {was}; this change runs {now}.", ""]
    moved = changes(old, new)
    real = [c for c in moved if not c.renumbered]
    added, removed = sorted(set(new.examples) - set(old.examples)), sorted(set(old.examples) - set(new.examples))
    examples = len({c.example for c in real})
    line = f"The output of {_plural(len(real), 'cell')} of {_plural(examples, 'example')} changed"
    line += f"; new: {_names(added)}" if added else ""
    line += f"; removed: {_names(removed)}" if removed else ""
    if len(real) < len(moved):
        line += f"; in {_plural(len(moved) - len(real), 'other cell')} only line numbers moved"
    out.append(line + ".")
    for path in sorted({c.example for c in moved}):
        out += ["", f"### `{path}`", ""]
        if pages := new.examples[path]["pages"]:
            out += [f"Shown on {_names(pages)}.", ""]
        if renumbered := [c.cell for c in moved if c.example == path and c.renumbered]:
            out += [f"Only line numbers moved (in tracebacks or warnings): {_names(renumbered)}.", ""]
        for change in (c for c in real if c.example == path):
            out += _details(change)
    return out


def _new_example(path: str, example: dict[str, Any], preview: str, default_lang: str) -> list[str]:
    """A new example for its reviewer: the pages that show it (linked into the preview) and what each cell they
    show printed, as a reader sees it."""
    out = [f"### `{path}` (new)", ""]
    pages = example["pages"]
    if pages:
        named = [f"[`{page}`]({page_url(preview, page, default_lang)})" if preview else f"`{page}`" for page in pages]
        out += [f"Shown on {', '.join(named)}.", ""]
    else:
        out += ["No page embeds it yet.", ""]
    cells: dict[str, Cell] = example["cells"]
    shown = [cell for cell in cells.values() if not cell.hidden and (cell.text or cell.images or cell.skipped)]
    for cell in shown:
        name = cell.key if not cell.key.startswith("#") else f"cell {cell.key}"
        out += [f"<details open><summary><code>{html.escape(name)}</code> (line {cell.line})</summary>", ""]
        if cell.skipped:
            out.append(f"Not run here ({cell.skipped}).")
        else:
            more = len(cell.text) - _LIMIT
            out += _fence(list(cell.text[:_LIMIT]) + ([f"… {more} more lines\n"] if more > 0 else []))
        if cell.images:
            out.append(_plural(len(cell.images), "figure") + ".")
        out += ["", "</details>"]
    if not shown:
        out.append("It shows no output.")
    return out


def page_url(preview: str, page: str, default_lang: str) -> str:
    """The address in the built site ``preview`` of ``page`` (``<lang>/<path>.md`` under the docs folder, as
    :func:`embedding` names it): the default language at the root, the others under their own folder."""
    lang, _, rest = page.partition("/")
    stem = rest.removesuffix(".md")
    path = stem.removesuffix("index") if stem == "index" or stem.endswith("/index") else stem + "/"
    return preview.rstrip("/") + "/" + ("" if lang == default_lang else f"{lang}/") + path


def _details(change: Change) -> list[str]:
    name = change.cell if not change.cell.startswith("#") else f"cell {change.cell}"
    where = f"line {change.line}" + (", hidden" if change.hidden else "")
    out = [f"<details open><summary><code>{html.escape(name)}</code> ({where})</summary>", ""]
    if change.diff:
        more = len(change.diff) - _LIMIT
        out += _fence(change.diff[:_LIMIT] + ([f"… {more} more lines\n"] if more > 0 else []), "diff")
    if change.images:
        out.append(change.images)
    return [*out, "", "</details>"]


def _fence(lines: list[str], language: str = "") -> list[str]:
    """``lines`` in a code fence longer than any run of backticks inside them."""
    return fence("".join(lines), language).split("\n")
