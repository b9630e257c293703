"""The generated page "What changed between torch releases": per page, every shown cell whose output is not
the same under other torch releases as under the build's, with the before and after output, and the hidden
checks that do not hold there.

A page writes the marker block ``/// torch-changes`` ``///``; the build replaces it with a line on the
releases compared and those that change nothing, then a section per page (in the order of its path) with:

- each cell whose output differs from the build's once the noise is taken out (render/attribution.py)
  and the torch version a release prints of itself: the releases that print the same other output
  together ("torch 2.4\u20132.5 print"), and a diff of it against the build's (``-`` the build's,
  ``+`` theirs), linking to the cell;
- each check that does not hold, with the releases where it does not.

Measurements (``varies``) and a machine's versions (``environment``) are no change. Recordings on
another device are left out: what differs there may be the device.
"""

from __future__ import annotations

import difflib
import html
import posixpath
import re
from dataclasses import dataclass, field

from mkdocs_examples.recordings.store import Recording, python_minor, release
from mkdocs_examples.render.attribution import change_key
from mkdocs_examples.render.checks import spans, version_key
from mkdocs_examples.render.page import anchor
from mkdocs_examples.render.provenance import inline
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.blocks import Block
from mkdocs_examples.source.cells import Example
from mkdocs_examples.source.pages import plain
from mkdocs_examples.texts import text as texts

MARKER = re.compile(r"^/// *torch-changes *\n/// *$", re.MULTILINE)
MAX_DIFF = 40  # lines of one diff on the page; the cell itself shows the rest


@dataclass
class Moved:
    """A cell the page shows whose output some releases print otherwise."""

    example: str
    cell: str  # its name, or its index
    place: str  # its anchor on the page
    ours: CellResult
    theirs: dict[str, CellResult] = field(default_factory=dict)  # torch release: its output there


@dataclass
class Changed:
    """What other releases change on one page: cells, and checks (example, line, message: the releases)."""

    page: str
    title: str
    cells: list[Moved] = field(default_factory=list)
    checks: dict[tuple[str, int | None, str], set[str]] = field(default_factory=dict)


@dataclass
class Changes:
    pages: list[Changed]
    releases: set[str]  # every release compared
    python: dict[str, str] = field(default_factory=dict)  # a release recorded under another Python: that Python
    uninstallable: list[dict[str, str]] = field(default_factory=list)  # manifests of releases pip could not install


def collect(
    pages: dict[str, tuple[str, list[Block]]],
    examples: dict[str, Example],
    built: dict[str, Result],
    recorded: dict[str, list[Recording]],
    uninstallable: list[dict[str, str]] | None = None,
) -> Changes:
    """What the releases of ``recorded`` (example path: its recordings on the build's device in which every cell
    ran as it is now) change against ``built`` (example path: this build's result), over the cells ``pages``
    show, page by page."""
    found: list[Changed] = []
    releases: set[str] = set()
    python: dict[str, str] = {}
    for page, (title, blocks) in sorted(pages.items()):
        changed = Changed(page, title)
        for block in blocks:
            example, result = examples.get(block.path), built.get(block.path)
            if example is None or result is None:
                continue
            mine = {c.cell: c for c in result.cells}
            for recording in recorded.get(block.path, []):
                torch = release(recording.env.get("torch", "?"))
                releases.add(torch)
                if recording.env.get("python") and python_minor(recording.env["python"]) != python_minor(
                        result.env.get("python", "?")):  # fmt: skip
                    python[torch] = python_minor(recording.env["python"])
                if recording.failed:
                    failed = recording.failed
                    changed.checks.setdefault((example.path, failed.line, failed.message), set()).add(torch)
                for item in example.cells:
                    if block.cell not in (None, item.name) or not item.tracked:  # a timing, or a machine's versions
                        continue
                    theirs, ours = recording.cell(item.index), mine.get(item.index)
                    if theirs is None or ours is None or theirs.skipped or ours.skipped:
                        continue
                    if recording.failed and recording.failed.cell == item.index:
                        continue
                    if change_key(theirs, recording.env) != change_key(ours, result.env):
                        place = anchor(example, item.index)
                        moved = next((m for m in changed.cells if m.place == place), None)
                        if moved is None:
                            moved = Moved(example.path, item.name or str(item.index), place, ours)
                            changed.cells.append(moved)
                        moved.theirs[torch] = theirs
        if changed.cells or changed.checks:
            found.append(changed)
    return Changes(found, releases, python, uninstallable or [])


def render(changes: Changes, built_env: dict[str, str], here: str, folder: str, lang: str) -> str:
    """Markdown for the changes page ``here``, links relative to it."""
    text = texts(lang)
    base = posixpath.dirname(here) or "."
    ours = release(built_env.get("torch", "?"))
    parts = [text["changes.summary"].format(torch=ours, python=python_minor(built_env.get("python", "?")))]
    for manifest in changes.uninstallable:  # a fact about the release, not a hole in the data
        parts.append(inline(text["changes.uninstallable"].format(
            release=manifest.get("torch", "?"), python=python_minor(manifest.get("python", "?")),
            platform=manifest.get("platform", "?"), reason=manifest.get("reason", "?"))))  # fmt: skip
    if not changes.releases:
        return "\n\n".join([*parts, text["changes.none"]]) + "\n"
    parts.append(text["changes.compared"].format(releases=spans(changes.releases, text), n=len(changes.releases)))
    moving = {r for c in changes.pages for m in c.cells for r in m.theirs}
    moving |= {r for c in changes.pages for rs in c.checks.values() for r in rs}
    if same := changes.releases - moving:
        parts.append(text["changes.same"].format(releases=spans(same, text)))
    if under := {r: p for r, p in changes.python.items()}:
        parts.append(text["changes.python"].format(releases=spans(under, text),
                                                   python=text["sep"].join(sorted(set(under.values())))))  # fmt: skip
    for changed in changes.pages:
        url = posixpath.relpath(changed.page, base)
        title = changed.title if not re.search(r"[\[\]<>\\]", changed.title) else _escape(plain(changed.title))
        parts.append(f"## [{title}]({url})")  # its code spans kept: `*` is a name here, not emphasis
        for moved in changed.cells:
            groups: dict[tuple, list[str]] = {}
            for torch, cell in moved.theirs.items():
                groups.setdefault(change_key(cell, {"torch": torch}), []).append(torch)
            where = f"[`{folder}/{moved.example}`, {text['changes.cell']} `{moved.cell}`]({url}#{moved.place})"
            parts.append(f"{where}:")
            for torchs in sorted(groups.values(), key=lambda rs: [version_key(r) for r in rs]):
                newest = max(torchs, key=version_key)
                label = text["changes.print"].format(releases=spans(torchs, text), torch=ours)
                parts += [inline(label), _pre(_diff(moved.ours, moved.theirs[newest]))]
        by_line = sorted(changed.checks.items(), key=lambda item: (item[0][0], item[0][1] or 0, item[0][2]))
        for (example, line, message), failing in by_line:
            what = text["changes.check"].format(example=f"{folder}/{example}", line=line or "?", message=message,
                                                releases=spans(failing, text))  # fmt: skip
            parts.append(f"- {inline(what)}")
    return "\n\n".join(parts) + "\n"


def _diff(ours: CellResult, theirs: CellResult) -> str:
    """``theirs`` against ``ours``, line by line: ``-`` what this build prints, ``+`` what the release prints."""
    old = (ours.output + (ours.traceback or "")).splitlines()
    new = (theirs.output + (theirs.traceback or "")).splitlines()
    lines = [line for line in difflib.unified_diff(old, new, lineterm="", n=1)][2:]  # no file header
    if len(lines) > MAX_DIFF:
        lines = [*lines[:MAX_DIFF], f"… {len(lines) - MAX_DIFF} more"]
    return "\n".join(lines) + "\n"


# Recorded text, so hostile: escaped for HTML, and for what reads Markdown before its raw HTML is set aside
# (fences of superfences, `/// example` blocks): a line of output can open neither
_RAW = str.maketrans({"`": "&#96;", "~": "&#126;", "/": "&#47;"})


def _pre(diff: str) -> str:
    """``diff`` as a raw HTML ``<pre>``: ``-`` lines as ``<del>``, ``+`` lines as ``<ins>``, hunk headers dimmed.

    Not a code block: Material measures every ``pre > code`` as a page starts (for its copy button and
    scrolling), which took most of the changes page's loading time on a phone; a diff is read, not copied.
    It wraps long lines instead of scrolling (mkdocs_examples.css)."""
    tags = {"-": "del", "+": "ins"}
    lines = []
    for line in diff.splitlines():
        body = html.escape(line).translate(_RAW)
        if line.startswith("@@"):
            lines.append(f'<span class="mx-diff__hunk">{body}</span>')
        elif tag := tags.get(line[:1]):
            lines.append(f"<{tag}>{body}</{tag}>")
        else:
            lines.append(body)
    return '<pre class="mx-diff">' + "\n".join(lines) + "</pre>"


def _name(env: dict[str, str]) -> str:
    return f"{env.get('torch', '?')}-{env.get('python', '?')}"


def _escape(title: str) -> str:
    return re.sub(r"([\[\]\\`*_<>])", r"\\\1", title)
