"""The generated page "What changed between torch releases": what other torch releases print otherwise than
the build's, read as release notes are read, old to new.

A page writes the marker block ``/// torch-changes`` ``///``; the build replaces it with, first, the behaviour
changes the site saw, release by release (newest first), one sentence each linked to the cell that shows it: a
check that declares the releases where it holds (``holds=">=2.6"``, source/holds.py) starts to hold at its lower
bound and stops at its upper one, and its ``claim=`` says what in words ("`torch.load` defaults to
`weights_only=True` ..."); the build checks each range against every recording (recordings/declared.py), so a
sentence is never the contributor's word alone. Then a line on the releases compared and those that change
nothing and, so that a reader scans it in a few screens, a line for each thing with what it stands for folded
below it:

- a summary: for each release, newest first, the number of pages whose outputs it changes against the release
  before it, the pages folded; and the number of pages whose tips (their hidden checks) do not hold on every
  release, the pages and where they do not ("not before torch 2.9") folded;
- a folded line per page (in the order of its path), under one heading, so that the part grows by a line a
  page: the page's title, how many of its outputs change and where its tip does not hold; opened, a link to
  the page and a collapsed block per cell whose output differs between releases once
  the noise is taken out (render/attribution.py) and the version a release prints of itself: the releases
  where it changes, and, opened, a link to the cell and a diff for each change, the older output ``-``, the
  newer ``+``; then each check that does not hold, with the code it checks.

A release is one environment here: of a release recorded under two Pythons, the build's Python's recording.
Measurements (``varies``) and a machine's versions (``environment``) are no change. Recordings on
another device are left out: what differs there may be the device.
"""

from __future__ import annotations

import difflib
import html
import itertools
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from mkdocs_examples.recordings.store import Recording, python_minor, release
from mkdocs_examples.render.attribution import change_key
from mkdocs_examples.render.checks import spans, version_key
from mkdocs_examples.render.fences import code_span
from mkdocs_examples.render.page import anchor
from mkdocs_examples.render.provenance import inline
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source import comments
from mkdocs_examples.source.blocks import Block
from mkdocs_examples.source.cells import Example, claimed
from mkdocs_examples.source.pages import plain
from mkdocs_examples.texts import text as texts

MAX_DIFF = 40  # lines of one diff on the page; the cell itself shows the rest


@dataclass
class Moved:
    """A cell the page shows whose output some releases print otherwise."""

    example: str
    cell: str  # its name, or its index
    place: str  # its anchor on the page
    ours: CellResult
    theirs: dict[str, CellResult] = field(default_factory=dict)  # torch release: its output there
    release: str = ""  # the build's torch release, which printed ``ours``
    torch: dict[str, str] = field(default_factory=dict)  # a release: the version it prints of itself (2.13.0+cpu)

    def steps(self) -> list[tuple[str, CellResult, str, CellResult]]:
        """Each change, old to new: (the last release before it, its output, the first that prints
        otherwise, its output). Consecutive releases that print the same are one run."""
        printed = sorted([*self.theirs.items(), (self.release, self.ours)], key=lambda item: version_key(item[0]))
        runs: list[list[tuple[str, CellResult]]] = []
        for torch, cell in printed:
            if runs and self._key(*runs[-1][-1]) == self._key(torch, cell):
                runs[-1].append((torch, cell))
            else:
                runs.append([(torch, cell)])
        return [(*before[-1], *after[0]) for before, after in itertools.pairwise(runs)]

    def _key(self, torch: str, cell: CellResult) -> tuple:
        return change_key(cell, {"torch": self.torch.get(torch, torch)})


@dataclass
class Changed:
    """What other releases change on one page: cells, and checks (example, line, message: the releases)."""

    page: str
    title: str
    cells: list[Moved] = field(default_factory=list)
    checks: dict[tuple[str, int | None, str], set[str]] = field(default_factory=dict)
    code: dict[tuple[str, int | None, str], str] = field(default_factory=dict)  # a check: the line it fails on


@dataclass(frozen=True)
class Claim:
    """A check that declares where it holds, and the releases the site saw on either side of the range's bounds."""

    example: Example
    cell: int  # its index
    page: str  # the page that shows it (the first, by path)
    title: str  # the page's title
    place: str | None  # the anchor on that page of the cell its claim is about; None: the page's top
    fails: frozenset[str]  # the releases compared where its check failed
    holds: frozenset[str]  # those where it ran and held (the build's included)

    def changes(self) -> list[tuple[tuple[int, int], str]]:
        """Each behaviour change the site saw: (the minor release it comes with, its kind: ``starts``, ``stops``,
        ``breaks`` or ``again``), where releases on both sides of a bound were compared."""
        declared = self.example.cells[self.cell].holds
        assert declared is not None
        minors = {v: _minor(v) for v in self.fails | self.holds}
        failing, holding = {minors[v] for v in self.fails}, {minors[v] for v in self.holds}
        found = []
        if declared.since and any(m < declared.since for m in failing) and any(m >= declared.since for m in holding):
            found.append((declared.since, "starts"))
        until = declared.until
        if until and any(m >= until for m in failing) and any(m < until for m in holding):
            found.append((until, "stops"))
        for but in declared.but:
            if but in failing:
                found.append((but, "breaks"))
                after = sorted(m for m in holding if m > but)
                if after:
                    found.append((after[0], "again"))
        return found


@dataclass
class Changes:
    pages: list[Changed]
    releases: set[str]  # every release compared
    python: dict[str, str] = field(default_factory=dict)  # a release recorded under another Python: that Python
    uninstallable: list[dict[str, str]] = field(default_factory=list)  # manifests of releases pip could not install
    claims: list[Claim] = field(default_factory=list)  # the checks that declare a range, each once


# What :func:`collect` kept of each page, for the next call (`mkdocs serve`'s rebuilds): page path: what the page
# was made of (title, blocks, their examples, results and recordings), and what changes on it (none where nothing
# does), with the releases compared there and those recorded under another Python
Memo = dict[str, tuple[tuple[Any, ...], tuple[Changed | None, set[str], dict[str, str], list[Claim]]]]


def collect(
    pages: dict[str, tuple[str, list[Block]]],
    examples: dict[str, Example],
    built: dict[str, Result],
    recorded: dict[str, list[Recording]],
    uninstallable: list[dict[str, str]] | None = None,
    memo: Memo | None = None,
) -> Changes:
    """What the releases of ``recorded`` (example path: its recordings on the build's device in which every cell
    ran as it is now) change against ``built`` (example path: this build's result), over the cells ``pages``
    show, page by page. ``memo``: what an earlier call found on each page, taken where the page, its examples,
    their results and recordings are the same, and updated."""
    found: list[Changed] = []
    releases: set[str] = set()
    python: dict[str, str] = {}
    claims: dict[tuple[str, int], Claim] = {}
    for page, (title, blocks) in sorted(pages.items()):
        paths = dict.fromkeys(block.path for block in blocks)
        inputs = (title, blocks, [(examples.get(p), built.get(p), recorded.get(p, [])) for p in paths])
        kept = memo.get(page) if memo is not None else None
        if kept is not None and kept[0] == inputs:
            changed, compared, under, declared = kept[1]
        else:
            changed, compared, under, declared = _on_page(page, title, blocks, examples, built, recorded)
            if memo is not None:
                memo[page] = (inputs, (changed, compared, under, declared))
        if changed is not None:
            found.append(changed)
        releases |= compared
        python.update(under)
        for claim in declared:  # said once, on the first page that shows it
            claims.setdefault((claim.example.path, claim.cell), claim)
    if memo is not None:
        for gone in memo.keys() - pages.keys():
            del memo[gone]
    return Changes(found, releases, python, uninstallable or [], list(claims.values()))


def _on_page(
    page: str, title: str, blocks: list[Block], examples: dict[str, Example], built: dict[str, Result],
    recorded: dict[str, list[Recording]],
) -> tuple[Changed | None, set[str], dict[str, str], list[Claim]]:
    """What changes on ``page`` (None where nothing does), the releases compared there, those recorded under
    another Python than the build's, and the checks its examples declare a range of."""
    releases: set[str] = set()
    python: dict[str, str] = {}
    changed = Changed(page, title)
    seen: dict[str, Moved] = {}  # by the cell's anchor
    claims: list[Claim] = []
    for block in blocks:
        example, result = examples.get(block.path), built.get(block.path)
        if example is None or result is None:
            continue
        claims += _claims(page, title, block, example, result, recorded.get(block.path, []))
        mine = {c.cell: c for c in result.cells}
        for recording in _one_per_release(recorded.get(block.path, []), result.env):
            torch = release(recording.env.get("torch", "?"))
            releases.add(torch)
            if recording.env.get("python") and python_minor(recording.env["python"]) != python_minor(
                    result.env.get("python", "?")):  # fmt: skip
                python[torch] = python_minor(recording.env["python"])
            for failed in (*([recording.failed] if recording.failed else []), *recording.declared):
                check = (example.path, failed.line, failed.message)
                changed.checks.setdefault(check, set()).add(torch)
                lines = example.source.splitlines()
                if failed.line and 0 < failed.line <= len(lines):
                    changed.code[check] = lines[failed.line - 1].strip()
            for item in example.cells:
                if block.cell not in (None, item.name) or not item.tracked:  # a timing, or a machine's versions
                    continue
                theirs, ours = recording.cell(item.index), mine.get(item.index)
                if theirs is None or ours is None or theirs.skipped or ours.skipped:
                    continue
                if item.index in recording.failed_cells:
                    continue
                place = anchor(example, item.index)
                moved = seen.setdefault(place, Moved(example.path, item.name or str(item.index), place, ours,
                                                     release=release(result.env.get("torch", "?"))))  # fmt: skip
                moved.theirs[torch] = theirs  # every release's, so that a change is placed where it happens
                moved.torch[torch] = recording.env.get("torch", "")
                moved.torch[moved.release] = result.env.get("torch", "")
                if change_key(theirs, recording.env) != change_key(ours, result.env) and moved not in changed.cells:
                    changed.cells.append(moved)
    return (changed if changed.cells or changed.checks else None), releases, python, claims


def _claims(page: str, title: str, block: Block, example: Example, result: Result,
            recordings: list[Recording]) -> list[Claim]:  # fmt: skip
    """The checks of ``example`` that declare a range, where ``block`` shows the cell each is about (or the whole
    example), with the releases where each failed and held."""
    found = []
    ours = release(result.env.get("torch", "?"))
    stop = result.failure.cell if result.failure is not None else None
    for cell in example.cells:
        if cell.holds is None or (stop is not None and cell.index >= stop):
            continue
        about = claimed(example, cell)
        if block.cell not in (None, about.name if about else None):
            continue
        fails, holds = set(), {ours}
        for recording in _one_per_release(recordings, result.env):
            failed = {f.cell for f in (*([recording.failed] if recording.failed else []), *recording.declared)}
            ran = recording.cell(cell.index) is not None or cell.index in failed
            if cell.index in failed:
                fails.add(release(recording.env.get("torch", "?")))
            elif ran:
                holds.add(release(recording.env.get("torch", "?")))
        place = anchor(example, about.index) if about is not None else None
        found.append(Claim(example, cell.index, page, title, place, frozenset(fails), frozenset(holds)))
    return found


def _minor(version: str) -> tuple[int, int]:
    return (*version_key(version), 0, 0)[:2]  # type: ignore[return-value]


def _one_per_release(recordings: list[Recording], built: dict[str, str]) -> list[Recording]:
    """One recording of each release, the page compares releases: of a release recorded under several Pythons, the
    one under the build's Python (``built``: the build's environment), else the first by Python."""
    ours = python_minor(built.get("python", "?"))
    kept: dict[str, Recording] = {}
    for recording in sorted(recordings, key=lambda r: (python_minor(r.env.get("python", "?")) != ours,
                                                      version_key(r.env.get("python", "?")))):  # fmt: skip
        kept.setdefault(release(recording.env.get("torch", "?")), recording)
    return list(kept.values())


def render(changes: Changes, built_env: dict[str, str], here: str, folder: str, lang: str) -> str:
    """Markdown for the changes page ``here``, links relative to it."""
    text = texts(lang)
    base = posixpath.dirname(here) or "."
    ours = release(built_env.get("torch", "?"))
    parts = _behaviour(changes, base, lang, text)
    parts += [f"## {text['changes.overview']}",
              text["changes.summary"].format(torch=ours, python=python_minor(built_env.get("python", "?")))]
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
    everything = changes.releases | {ours}
    parts += _summary(changes, everything, text)
    if changes.pages:
        parts.append(f"## {text['changes.by_page']}")
    for changed in changes.pages:  # one folded line: the page, what changes on it, and where
        url = posixpath.relpath(changed.page, base)
        inner = [text["changes.page.open"].format(page=f"[{_title(changed.title)}]({url})")]  # `*`: a name
        inner += [_cell(moved, url, folder, text) for moved in changed.cells]
        by_line = sorted(changed.checks.items(), key=lambda item: (item[0][0], item[0][1] or 0, item[0][2]))
        checks = []
        for check, failing in by_line:
            example, line, message = check
            when = _where(failing, everything, text)
            code = changed.code.get(check)
            checks.append("- " + text["changes.check" if code else "changes.check.nocode"].format(
                when=when[:1].upper() + when[1:], code=code_span(code or ""), message=inline(message),
                example=f"{folder}/{example}", line=line or "?"))  # fmt: skip
        if checks:
            inner.append("\n".join(checks))
        said = [_counted(len(changed.cells), "changes.page.cells", text)] if changed.cells else []
        if changed.checks:
            said.append(text["changes.page.tip"].format(when=_where(set().union(*changed.checks.values()),
                                                                     everything, text)))  # fmt: skip
        folded = text["changes.page.line"].format(page=_title(changed.title), said=text["changes.page.sep"].join(said))
        parts.append(_folded("mx-changes mx-changes--page", folded, "\n\n".join(inner), _section(changed.page)))
    return "\n\n".join(parts) + "\n"


def _behaviour(changes: Changes, base: str, lang: str, text: dict[str, str]) -> list[str]:
    """The top of the page: the behaviour changes the site saw, a heading per minor release, newest first, and a
    sentence each, the claim of the check linked to the cell it is about (:class:`Claim`)."""
    by_minor: dict[tuple[int, int], list[tuple[str, Claim]]] = {}
    for claim in changes.claims:
        for minor, kind in claim.changes():
            by_minor.setdefault(minor, []).append((kind, claim))
    if not by_minor:
        return []
    parts = [f"## {text['changes.behaviour']}"]
    for minor in sorted(by_minor, reverse=True):
        name = ".".join(map(str, minor))
        parts.append(f"### torch {name} {{ #changes-torch-{name.replace('.', '-')} }}")
        items = []
        for kind, claim in sorted(by_minor[minor], key=lambda item: (item[1].page, item[1].cell)):
            cell = claim.example.cells[claim.cell]
            words = comments.words(claim.example, cell.claim, lang) if cell.claim else text["changes.unsaid"]
            url = posixpath.relpath(claim.page, base) + (f"#{claim.place}" if claim.place else "")
            items.append("- " + text[f"changes.{kind}"].format(claim=f"[{_claimed(words)}]({url})",
                                                               page=_title(claim.title)))  # fmt: skip
        parts.append("\n".join(items))
    return parts


def _claimed(words: str) -> str:
    """A claim (plain text, code between backticks) as Markdown link text: its code spans kept, the rest escaped."""
    parts = re.split(r"(`[^`]+`)", words)
    return "".join(part if part.startswith("`") else _escape(part) for part in parts)


def _cell(moved: Moved, url: str, folder: str, text: dict[str, str]) -> str:
    """A cell whose output changes, folded: its summary names the releases where it changes; opened, a link to
    the cell and a diff for each change, old to new."""
    steps = moved.steps()
    body = [f"[`{folder}/{moved.example}`, {text['changes.cell']} `{moved.cell}`]({url}#{moved.place})"]
    for old, before, new, after in steps:
        body += [text["changes.step"].format(old=old, new=new), _pre(_diff(before, after))]
    said = text["changes.cell.summary"].format(cell=moved.cell, releases=_listed([s[2] for s in steps], text))
    return _folded("mx-change", said, "\n\n".join(body))


def _folded(kind: str, summary: str, body: str, place: str = "") -> str:
    """A collapsed block of class ``kind``: ``summary`` its one line, ``body`` (Markdown) what opens; ``place``
    its id, where a link leads to it."""
    at = f' id="{place}"' if place else ""
    return f'<details class="{kind}"{at} markdown>\n<summary markdown>{summary}</summary>\n\n{body}\n\n</details>'


def _counted(n: int, key: str, text: dict[str, str]) -> str:
    """``n`` things in the words of ``key`` (``key.one`` for one)."""
    return text[f"{key}.one"] if n == 1 else text[key].format(n=n)


def _summary(changes: Changes, everything: set[str], text: dict[str, str]) -> list[str]:
    """The top of the page, a line each: for each release, newest first, how many pages it changes outputs of
    against the release before it, the pages folded; then how many pages have tips that do not hold on every
    release, the pages and where folded."""
    by_release: dict[str, dict[str, int]] = {}
    for changed in changes.pages:
        for moved in changed.cells:
            for _, _, new, _ in moved.steps():
                counted = by_release.setdefault(new, {})
                counted[changed.page] = counted.get(changed.page, 0) + 1
    titles = {c.page: _title(c.title) for c in changes.pages}
    parts = []
    if by_release:
        parts.append(text["changes.by_release"])
        for torch in sorted(by_release, key=version_key, reverse=True):
            pages = [f"[{titles[page]}](#{_section(page)})" + (text["changes.outputs"].format(n=n) if n > 1
                     else "") for page, n in by_release[torch].items()]  # fmt: skip
            said = text["changes.release"].format(release=torch, pages=_counted(len(pages), "changes.pages", text))
            parts.append(_folded("mx-changes mx-changes--release", said, text["sep"].join(pages)))
    tips = [(c.page, _where(set().union(*c.checks.values()), everything, text)) for c in changes.pages if c.checks]
    if tips:
        listed = "\n".join("- " + text["changes.tip"].format(page=f"[{titles[page]}](#{_section(page)})",
                                                             when=when) for page, when in tips)  # fmt: skip
        said = text["changes.tips"].format(pages=_counted(len(tips), "changes.pages", text))
        parts.append(_folded("mx-changes mx-changes--release", said, listed))
    return parts


def _where(failing: set[str], everything: set[str], text: dict[str, str]) -> str:
    """Where a check does not hold, in a reader's words: "not before torch 2.9" where it fails on every release
    older than one, "not from torch 2.15 on" where on every newer one, else the releases by name."""
    ordered = sorted(everything, key=version_key)
    holds = [r for r in ordered if r not in failing]
    if holds and all(version_key(r) < version_key(holds[0]) for r in failing):
        return text["changes.before"].format(release=holds[0])
    if holds and all(version_key(r) > version_key(holds[-1]) for r in failing):
        return text["changes.from"].format(release=min(failing, key=version_key))
    return text["changes.on"].format(releases=spans(failing, text))


def _listed(releases: list[str], text: dict[str, str]) -> str:
    """``releases`` one by one, oldest first: where an output changes, a range would say every release between."""
    ordered = sorted(set(releases), key=version_key)
    return ordered[0] if len(ordered) == 1 else f"{text['sep'].join(ordered[:-1])} {text['and']} {ordered[-1]}"


def _title(title: str) -> str:
    """A page's title as link text: as it is written, its code spans kept (`*` is a name there, not emphasis)."""
    return title if not re.search(r"[\[\]<>\\]", title) else _escape(plain(title))


def _section(page: str) -> str:
    """The id of a page's section on this page."""
    return "changes-" + re.sub(r"[^a-z0-9]+", "-", page.lower().removesuffix(".md")).strip("-")


def _diff(before: CellResult, after: CellResult) -> str:
    """``after`` against ``before``, line by line: ``-`` the older release's lines, ``+`` the newer's."""
    old = (before.output + (before.traceback or "")).splitlines()
    new = (after.output + (after.traceback or "")).splitlines()
    lines = [line for line in difflib.unified_diff(old, new, lineterm="", n=1)][2:]  # no file header
    if len(lines) > MAX_DIFF:
        lines = [*lines[:MAX_DIFF], f"… {len(lines) - MAX_DIFF} more"]
    return "\n".join(lines) + "\n"


# Recorded text, so hostile: escaped for HTML, and for what reads Markdown before its raw HTML is set aside
# (fences of superfences, `/// example` blocks): a line of output can open neither
_RAW = str.maketrans({"`": "&#96;", "~": "&#126;", "/": "&#47;"})
# Where a long run of code may wrap, as a reader would break it: after a dot, a slash, a bracket, a comma or an
# equals sign before a name (sourceTensor.detach().clone()); a line wraps inside a name only where one is longer
# than the line (mkdocs_examples.css)
_BREAKS = re.compile(r"([./(\[,=])(?=\w)")


def _pre(diff: str) -> str:
    """``diff`` as a raw HTML ``<pre>``: ``-`` lines as ``<del>``, ``+`` lines as ``<ins>``, hunk headers dimmed.

    Not a code block: Material measures every ``pre > code`` as a page starts (for its copy button and
    scrolling), which took most of the changes page's loading time on a phone; a diff is read, not copied.
    It wraps long lines instead of scrolling (mkdocs_examples.css)."""
    tags = {"-": "del", "+": "ins"}
    lines = []
    for line in diff.splitlines():
        body = _BREAKS.sub(r"\1<wbr>", html.escape(line)).translate(_RAW)
        if line.startswith("@@"):
            lines.append(f'<span class="mx-diff__hunk">{body}</span>')
        elif tag := tags.get(line[:1]):
            lines.append(f"<{tag}>{body}</{tag}>")
        else:
            lines.append(body)
    return '<pre class="mx-diff">' + "\n".join(lines) + "</pre>"


def _escape(title: str) -> str:
    return re.sub(r"([\[\]\\`*_<>])", r"\\\1", title)
