"""The generated page "What changed between torch releases": every shown cell whose output, or hidden check,
is not the same under another torch release as under the build's.

A page writes the marker block ``/// torch-changes`` ``///``; the build replaces it with one
section per recorded environment on the build's device (a release of torch, and its Python),
newest first, listing the cells whose output differs from the build's once the noise is taken
out (render/attribution.py), each linking to the cell on its page, and the checks that do not
hold there. Recordings on another device are left out: what differs there may be the device.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from mkdocs_examples.recordings.store import Recording, python_minor, release
from mkdocs_examples.render.attribution import key
from mkdocs_examples.render.checks import version_key
from mkdocs_examples.render.page import anchor
from mkdocs_examples.render.provenance import inline
from mkdocs_examples.results import Result
from mkdocs_examples.source.blocks import Block
from mkdocs_examples.source.cells import Example
from mkdocs_examples.source.pages import plain
from mkdocs_examples.texts import text as texts

MARKER = re.compile(r"^/// *torch-changes *\n/// *$", re.MULTILINE)


@dataclass
class Changed:
    """What one environment changes: cells (page, title, anchor, example, cell name) and failed checks."""

    env: dict[str, str]
    cells: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    checks: list[tuple[str, str, int | None, str]] = field(default_factory=list)  # page, example, line, message


def collect(
    pages: dict[str, tuple[str, list[Block]]],
    examples: dict[str, Example],
    built: dict[str, Result],
    recorded: dict[str, list[Recording]],
) -> list[Changed]:
    """The changes of each environment of ``recorded`` (example path: its fresh recordings on the build's device)
    against ``built`` (example path: this build's result), over the cells ``pages`` show, newest release first."""
    found: dict[str, Changed] = {}
    for page, (title, blocks) in sorted(pages.items()):
        for block in blocks:
            example, result = examples.get(block.path), built.get(block.path)
            if example is None or result is None:
                continue
            mine = {c.cell: c for c in result.cells}
            for recording in recorded.get(block.path, []):
                changed = found.setdefault(_name(recording.env), Changed(recording.env))
                if recording.failed and (page, example.path) not in {(c[0], c[1]) for c in changed.checks}:
                    changed.checks.append((page, example.path, recording.failed.line, recording.failed.message))
                for item in example.cells:
                    if block.cell not in (None, item.name) or not item.tracked:  # a timing, or a machine's versions
                        continue
                    theirs, ours = recording.cell(item.index), mine.get(item.index)
                    if theirs is None or ours is None or theirs.skipped or ours.skipped:
                        continue
                    if recording.failed and recording.failed.cell == item.index:
                        continue
                    if key(theirs) != key(ours):
                        place = (page, title, anchor(example, item.index), example.path, item.name or str(item.index))
                        if place not in changed.cells:
                            changed.cells.append(place)
    return sorted(found.values(), key=lambda c: version_key(c.env.get("torch", "0")), reverse=True)


def render(changes: list[Changed], built_env: dict[str, str], here: str, folder: str, lang: str) -> str:
    """Markdown for the changes page ``here``, links relative to it."""
    text = texts(lang)
    base = posixpath.dirname(here) or "."
    parts = [text["changes.summary"].format(torch=release(built_env.get("torch", "?")),
                                             python=python_minor(built_env.get("python", "?")))]  # fmt: skip
    if not changes:
        parts.append(text["changes.none"])
    for changed in changes:
        env = changed.env
        parts.append(f"## torch {inline(release(env.get('torch', '?')))}")
        parts.append(text["changes.env"].format(what=inline(f"torch {env.get('torch', '?')} · Python "
                                                            f"{env.get('python', '?')}")))  # fmt: skip
        if not changed.cells and not changed.checks:
            parts.append(text["changes.same"])
        for page, title, place, example, cell in changed.cells:
            url = posixpath.relpath(page, base)
            where = f"`{folder}/{example}`, {text['changes.cell']} `{cell}`"
            parts.append(f"- [{_escape(plain(title))}]({url}#{place}): {where}")
        for page, example, line, message in changed.checks:
            url = posixpath.relpath(page, base)
            what = text["changes.check"].format(example=f"{folder}/{example}", line=line or "?", message=message)
            parts.append(f"- {inline(what)} ([{text['changes.page']}]({url}))")
    return "\n\n".join(parts) + "\n"


def _name(env: dict[str, str]) -> str:
    return f"{env.get('torch', '?')}-{env.get('python', '?')}"


def _escape(title: str) -> str:
    return re.sub(r"([\[\]\\`*_<>])", r"\\\1", title)
