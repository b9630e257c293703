"""An index of every exception the site's pages show, built from the tracebacks themselves.

A page asks for it with a marker block::

    /// error-index
    ///

and gets, in its language, one entry per distinct exception line (type and message, with
numbers and shapes folded, so ``shapes cannot be multiplied (2x3 and 4x5)`` and ``(8x5 and
3x3)`` are one entry) linking to every page and cell that shows it. Numbers that are part of
the message's fixed text (``more than 1 value per channel``) stay, and what changes from run
to run without saying anything (the processes an out-of-memory message lists) is left out.
A message whose first line ends with a colon is named with the head of its next line, so the
kinds of ``Error(s) in loading state_dict`` are entries of their own. Built from the results of
the same build, it cannot drift from what the pages show.

An error is found where a reader sees one: the exception line of a traceback (the outer one, and the
original error a DataLoader worker's traceback carries in its message), and a line an example prints
of an error it caught (``RuntimeError: ...`` at the start of a line of its output).

An entry is one error across environments: this build's torch and the published recordings
(other torch releases, other devices). Where one cell raises the same type of exception with
other words in another environment, both wordings are variants of one error and one entry lists
them, the message first, where a reader scans, then the releases that printed it (and the device
where it is not the CPU): ``...`` torch 2.4\u20132.15; 2.11.0 on CUDA. Wordings that are the same once
the machine's noise is out (``render.attribution.normalise``) and numbers folded are one wording,
shown once with all their releases. A link to an output only a recording shows names its device
(``CUDA``) or, on the build's device, its release.

An error no machine of this site can raise (one only a GPU or NCCL raises, before its page has a
recording) may be quoted from PyTorch's source instead, one ``Type: message`` a line::

    /// quoted-error | c10/cuda/CUDAException.cpp
    torch.AcceleratorError: CUDA error: device-side assert triggered
    ///

The page shows it in a box labelled as a quotation from that file of the build's torch release
(:func:`quote_boxes`), or of another release's tag or a commit of PyTorch's repository where one
follows the path (``aten/src/ATen/Context.cpp @ v2.9.1``: a message the build's release no longer has;
``c10/cuda/CUDAException.cpp @ <40 hex digits>``: a file the build's torch was not read from),
never as an output, and the index lists each line as a wording labelled
"quoted from PyTorch's source", linking to the box (:func:`quotes`, the ``quoted`` of :func:`collect`).
A message that another project words, such as a newer Python's, names that project's repository
before the path, with the tag quoted (its default branch where none follows)::

    /// quoted-error | python/cpython:Modules/_pickle.c @ v3.14.0
    _pickle.PicklingError: Can't pickle local object <function f.<locals>.<lambda> at 0x…>
    ///
The lines of one block that have one exception type are wordings of one error, as a cell's are.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mkdocs_examples.recordings.store import release
from mkdocs_examples.render.attribution import normalise
from mkdocs_examples.render.checks import spans, version_key
from mkdocs_examples.render.fences import code_span
from mkdocs_examples.render.page import anchor
from mkdocs_examples.render.provenance import device_name, name
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.blocks import Block
from mkdocs_examples.source.cells import Example
from mkdocs_examples.source.markdown import Markdown, Replacement
from mkdocs_examples.texts import text as texts
from mkdocs_examples.tracebacks import TYPE_ALONE, exception_line, message_lines  # noqa: F401 (exception_line: the index's name for it too)

SOURCE_URL = "https://github.com/{repo}/blob/{tag}/{source}"
PYTORCH = "pytorch/pytorch"
# how the boxes and the index name a repository's project; another is named by its repository
PROJECTS = {PYTORCH: "PyTorch", "python/cpython": "CPython"}


# Punctuation of the rendered list, by language: between the pages of an entry, and around
# a device's name or the number of a page's further cell
_PUNCTUATION = {"en": (", ", " ({})"), "zh": ("、", "（{}）")}
# ... and of a wording's label: between quoted releases, between its devices
_LABELS = {"en": (", ", "; "), "zh": ("、", "；")}

# A line an example prints of an error it caught: ``RuntimeError: ...``, ``torch.AcceleratorError: ...``
_PRINTED = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): \S.*$", re.MULTILINE)
_SHAPE = re.compile(r"(?<![\w.])\d+(?:x\d+)+(?![\w.])")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w])")
_ADDRESS = re.compile(r"(?<!\w)0x[0-9a-fA-F]+")  # not the "0x0" of a shape (3x0x0)
# Numbers that are fixed text of PyTorch's messages, not values: kept when folding
_FIXED = re.compile(
    r"more than 1 value per channel|between 0 and 1|received 0 items of ancdata"  # the words of a message
    r"|argument #\d+|argument '\w+' \(position \d+\)"  # which argument of the function named
    r"|\b\d+-(?:d|D|dim)\b|\w\(-?\d+\)"  # a 0-dim or 0-d tensor, 2-D; input.size(-1)
)
# The other processes on the GPU that an out-of-memory message lists: a different list every run
_PROCESSES = re.compile(r"Process \d+ has [\d.]+ [KMGT]?i?B memory in use\. ?")
_LABEL = {"cuda": "CUDA", "mps": "MPS", "cpu": "CPU"}


@dataclass(frozen=True)
class Shown:
    """One place a traceback is shown: a page (path in its language's tree) and the cell's anchor.

    ``recorded``: the device's name of the recording the traceback comes from (``H200``), or its environment's
    (``torch 2.14.1``) where it ran on the build's device, or ``""`` when this build raised it.
    """

    page: str
    title: str
    anchor: str
    recorded: str = ""


@dataclass(frozen=True, order=True)
class Printed:
    """An environment that printed a wording: its device, torch release (``""`` where unknown) and the device's
    name (render/provenance.py ``device_name``: ``H200``)."""

    device: str
    torch: str
    named: str = ""

    @property
    def version(self) -> tuple[int, ...]:
        return version_key(self.torch)


@dataclass
class Wording:
    """One wording of an error: how some environments word it, folded (numbers as N); ``quoted``: the projects
    whose source a page quotes it from (PyTorch, CPython), each with the releases quoted where a block names one
    (PyTorch 2.9.1: not the build's)."""

    kind: str
    message: str
    printed: set[Printed] = field(default_factory=set)
    quoted: dict[str, set[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Quote:
    """A ``quoted-error`` block of a page: the file of a project's source (PyTorch's unless ``repo`` names
    another), the lines quoted from it, the block's id."""

    source: str
    lines: tuple[str, ...]
    anchor: str
    ref: str = ""  # the commit or release tag (v2.9.1) quoted, where it is not the build's release
    repo: str = PYTORCH

    @property
    def project(self) -> str:
        return PROJECTS.get(self.repo, self.repo)


def quotes(page: Markdown) -> list[Quote]:
    """The ``quoted-error`` blocks of ``page`` (outside fenced code), each with an id unique on the page."""
    found: list[Quote] = []
    for block in page.quoted:
        slug = "quoted-" + re.sub(r"[^a-z0-9]+", "-", block.source.lower()).strip("-")
        same = sum(q.anchor == slug or q.anchor.startswith(slug + "-") for q in found)
        found.append(Quote(block.source, block.lines, f"{slug}-{same + 1}" if same else slug, block.ref,
                           block.repo or PYTORCH))  # fmt: skip
    return found


def quote_boxes(page: Markdown, torch: str, lang: str) -> list[Replacement]:
    """Each ``quoted-error`` block of ``page`` as a box that says where it is quoted from: the file in PyTorch's
    repository at the tag of ``torch`` (the build's release; ``main`` where unknown), or in another project's at
    the tag the block names (its default branch where it names none)."""
    text = texts(lang)
    tag = f"v{release(torch)}" if torch else "main"

    def box(quote: Quote) -> str:
        default = tag if quote.repo == PYTORCH else "main"
        url = SOURCE_URL.format(repo=quote.repo, tag=quote.ref or default, source=quote.source)
        if quote.ref.startswith("v"):  # a release's tag
            version = quote.ref[1:]
        elif quote.ref:
            version = text["quoted.commit"].format(commit=quote.ref[:10])
        else:
            version = (release(torch) or "main") if quote.repo == PYTORCH else "main"
        said = text["quoted.from"].format(source=f"[`{quote.source}`]({url})", project=quote.project, release=version)
        body = "\n".join(["```text", *quote.lines, "```"])
        inner = f"{said}\n\n{body}".replace("\n", "\n    ")
        title = text["quoted.title"].format(project=quote.project)
        return f'<span id="{quote.anchor}"></span>\n\n!!! quote "{title}"\n    {inner}'

    return [Replacement(block.start, block.end + 1, (box(quote),))
            for block, quote in zip(page.quoted, quotes(page), strict=True)]  # fmt: skip


@dataclass
class Entry:
    kind: str  # the exception's type: RuntimeError (of the build's wording, where the build printed one)
    message: str  # folded: numbers as N
    shown: list[Shown] = field(default_factory=list)
    wordings: list[Wording] = field(default_factory=list)  # every variant: its own first, then the newest release's


def index_line(traceback: str, *, innermost: bool = False) -> str | None:
    """The exception line as the index names it: with the head of the next line (up to its
    first colon) when the first ends with a colon, as ``Error(s) in loading state_dict for
    Linear:`` does before ``Missing key(s) in state_dict: ...`` or ``size mismatch for weight: ...``."""
    rest = message_lines(traceback, innermost=innermost)
    return _with_next_head(rest[0], [line for line in rest[1:] if line.strip()]) if rest else None


def _with_next_head(line: str, rest: list[str]) -> str:
    line = line.strip()
    if TYPE_ALONE.match(line) and rest:  # a message that starts on the next line: all of that line
        return f"{line} {rest[0].strip()}"
    if line.endswith(":") and rest:
        head, colon, _ = rest[0].strip().partition(":")
        line += f" {head}{colon}"
    return line


def index_lines(cell: CellResult) -> list[tuple[str, str]]:
    """Each error a cell shows, as the index names it, with where in the cell it is (its slot, so that another
    environment's wording in the same place is a variant of it): the traceback's exception, the original error
    its message carries, and each error line the cell printed."""
    found: list[tuple[str, str]] = []
    if cell.traceback:
        raised, original = index_line(cell.traceback), index_line(cell.traceback, innermost=True)
        found += [("raised", line) for line in (raised,) if line]
        found += [("original", line) for line in (original,) if line and line != raised]
    printed: dict[str, int] = {}
    for match in _PRINTED.finditer(cell.output):
        kind = match[0].partition(":")[0]
        printed[kind] = printed.get(kind, -1) + 1
        rest = cell.output[match.end() :].splitlines()[1:]
        found.append((f"printed {printed[kind]}", _with_next_head(match[0], rest)))
    return found


def fold(line: str) -> tuple[str, str]:
    """(type, message) of an exception line, with the numbers in the message replaced by N.

    Numbers of the message's fixed text stay, and the process list of an out-of-memory
    message goes.
    """
    kind, _, message = line.partition(": ")
    message = _PROCESSES.sub("", _ADDRESS.sub("0x…", message))
    parts = _FIXED.split(message)  # fold what lies between the fixed phrases
    fixed = _FIXED.findall(message)
    folded = [_NUMBER.sub("N", _SHAPE.sub(lambda m: "x".join("N" * (m[0].count("x") + 1)), p)) for p in parts]
    message = "".join(part + (fixed[i] if i < len(fixed) else "") for i, part in enumerate(folded))
    return kind.strip(), message.strip()


# One error a page shows: its identity (fold of the line, noise out), its wording folded, the environment that
# printed it, whether this build did, the place in a cell it is in (example, cell, type, slot) and where it is shown
_Found = tuple[tuple[str, str], tuple[str, str], Printed, bool, tuple[str, int, str, str], Shown]
# What :func:`collect` kept of each page, for the next call (`mkdocs serve`'s rebuilds): page path: what the page
# was made of (title, blocks, their examples and results) and the errors found on it
Memo = dict[str, tuple[tuple[Any, ...], list[_Found]]]


def collect(
    pages: dict[str, tuple[str, list[Block]]], examples: dict[str, Example], results: dict[str, list[Result]],
    quoted: dict[str, list[Quote]] | None = None, memo: Memo | None = None, lang: str = "en",
) -> list[Entry]:
    """The entries for ``pages`` (page path: its title and blocks), sorted by type and message.

    ``results``: what each example's blocks show: this build's result first, then the
    published recordings (other releases, other devices) that the pages show beside it.
    ``quoted``: the ``quoted-error`` blocks of the pages, by page path. ``memo``: what an earlier call found on
    each page, taken where the page, its examples and their results are the same, and updated; ``lang``: the
    language of the pages, in which a link to a recorded output names its environment.
    """
    wordings: dict[tuple[str, str], Wording] = {}  # by identity: type and message, noise out, folded
    places: dict[tuple[str, str], list[Shown]] = {}
    cells: dict[tuple[str, int, str, str], set[tuple[str, str]]] = {}  # a place in a cell, a type: its wordings
    built: set[tuple[str, str]] = set()  # the wordings this build printed
    for page, (title, blocks) in sorted(pages.items()):
        for key, folded, printed, first, cell, place in _on_page(page, title, blocks, examples, results, memo, lang):
            wording = wordings.setdefault(key, Wording(*folded))
            wording.printed.add(printed)
            built.update([key] if first else [])
            cells.setdefault(cell, set()).add(key)
            known = places.setdefault(key, [])
            if all((s.page, s.anchor) != (place.page, place.anchor) for s in known):
                known.append(place)  # the same cell, recorded too: linked once
    if memo is not None:
        for gone in memo.keys() - pages.keys():
            del memo[gone]
    for page, found in sorted((quoted or {}).items()):
        title = pages.get(page, ("", []))[0]
        for quote in found:
            for line in quote.lines:
                key = fold(normalise(line))
                wording = wordings.setdefault(key, Wording(*fold(line)))
                releases = wording.quoted.setdefault(quote.project, set())
                if quote.ref.startswith("v"):  # a release's tag
                    releases.add(quote.ref[1:])
                cells.setdefault((page, -1 - found.index(quote), key[0], "quoted"), set()).add(key)
                known = places.setdefault(key, [])
                if all((s.page, s.anchor) != (page, quote.anchor) for s in known):
                    known.append(Shown(page, title, quote.anchor, "quoted"))
    entries = [_entry(group, wordings, places, built) for group in _variants(cells.values())]
    return sorted(entries, key=lambda entry: (_reading(entry.kind), _reading(entry.message), entry.message))


def _on_page(
    page: str, title: str, blocks: list[Block], examples: dict[str, Example], results: dict[str, list[Result]],
    memo: Memo | None, lang: str,
) -> list[_Found]:
    """The errors ``page``'s blocks show, in the order of its blocks, results and cells (``memo``: see collect)."""
    paths = dict.fromkeys(block.path for block in blocks)
    inputs = (title, blocks, [(examples.get(path), results.get(path, [])) for path in paths])
    if memo is not None and (kept := memo.get(page)) is not None and kept[0] == inputs:
        return kept[1]
    found: list[_Found] = []
    for block in blocks:
        example = examples.get(block.path)
        if example is None:
            continue
        shown_cells = {c.index for c in example.cells if block.cell in (None, c.name)}
        shown_results = results.get(block.path, [])
        for n, result in enumerate(shown_results):
            recorded = _recorded_label(result.env, shown_results[0].env, lang) if n else ""
            printed = Printed(result.env.get("device", "?"), release(result.env.get("torch", "")),
                              device_name(result.env))  # fmt: skip
            for cell in result.cells:
                if cell.cell not in shown_cells or not example.cells[cell.cell].output_shown:
                    continue
                for slot, line in index_lines(cell):
                    key = fold(normalise(line))
                    place = Shown(page, title, anchor(example, cell.cell), recorded)
                    found.append((key, fold(line), printed, n == 0, (block.path, cell.cell, key[0], slot), place))
    if memo is not None:
        memo[page] = (inputs, found)
    return found


def _reading(text: str) -> str:
    """The order a reader looks a name up in: "mat1 and mat2" among the m's, not after every capital, and
    "'NoneType' object" among the n's, "_pickle.UnpicklingError" among the p's: what it starts with before its
    first letter or digit left out."""
    return re.sub(r"^[\W_]+", "", text).casefold()


def _variants(cells: Iterable[set[tuple[str, str]]]) -> list[list[tuple[str, str]]]:
    """The wordings that are one error: those one cell printed (in some environments), and by extension
    those that share a wording with them."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(key: tuple[str, str]) -> tuple[str, str]:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    for keys in cells:
        first, *rest = sorted(keys)
        root(first)
        for key in rest:
            parent[root(key)] = root(first)
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for key in sorted(parent):
        groups.setdefault(root(key), []).append(key)
    return list(groups.values())


def _entry(
    keys: list[tuple[str, str]], wordings: dict[tuple[str, str], Wording],
    places: dict[tuple[str, str], list[Shown]], built: set[tuple[str, str]],
) -> Entry:  # fmt: skip
    """One error: named by the build's wording where it printed one, linking every place any of its wordings shows."""
    variants = [wordings[key] for key in keys]
    main = wordings[min(keys, key=lambda key: (key not in built, key))]
    variants.sort(key=lambda w: (w is not main, _newest(w), w.kind, w.message))  # the one it is named by first
    shown: list[Shown] = []
    for key in sorted(keys, key=lambda key: (key not in built, key)):
        for place in places[key]:
            if all((s.page, s.anchor) != (place.page, place.anchor) for s in shown):
                shown.append(place)
    shown.sort(key=lambda place: place.page)  # stable: a page's cells stay in the order they were found
    return Entry(main.kind, main.message, shown, variants)


def _newest(wording: Wording) -> tuple[int, ...]:
    """A sort key that puts the wording of the newest release first."""
    return tuple(-part for part in max((p.version for p in wording.printed), default=()))


def _recorded_label(env: dict[str, str], built: dict[str, str], lang: str) -> str:
    """What marks a link to a recorded output: its device's name (``H200``) where the build ran on another, else
    its environment's name (``torch 2.14.1 · CPU``): the label under that output, or the title of the note it is
    folded in, says the same (render/provenance.py ``name``)."""
    if env.get("device", "?") != built.get("device", "?"):
        return device_name(env)
    return name(env, built, lang=lang)


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
        between, _ = _PUNCTUATION.get(lang, _PUNCTUATION["en"])
        links = between.join(_links(places, here, lang) for places in by_page.values())
        lines = [_wording(w, lang) for w in entry.wordings] or [_message(entry.message, lang)]
        parts.append("- " + "  \n  ".join([*lines, links]))
    return "\n\n".join(parts) + "\n"


def _wording(wording: Wording, lang: str) -> str:
    """A wording, then where it was printed, shorter and dimmed: ```message` <small>torch 2.4\u20132.12 and
    2.14.1; 2.11.0 on CUDA</small>``: its releases (a range where they are consecutive minor releases:
    render/checks.spans), by device (named where it is not the CPU). Environments whose torch is unknown are
    left out of the label."""
    text = texts(lang)
    by_device: dict[tuple[str, str], list[str]] = {}
    for env in sorted(wording.printed):
        if env.torch:
            by_device.setdefault((env.device, env.named or _LABEL.get(env.device, env.device)), []).append(env.torch)
    groups: list[str] = []
    for (device, device_named), printed in sorted(by_device.items(), key=lambda item: (item[0][0] != "cpu", item[0])):
        named = ("" if groups else "torch ") + spans(printed, text)  # "torch" once, before the first
        groups.append(named if device == "cpu" else text["index.device"].format(releases=named, device=device_named))
    for project, quoted in sorted(wording.quoted.items()):
        if quoted:
            releases = _LABELS.get(lang, _LABELS["en"])[0].join(sorted(quoted, key=version_key))
            groups.append(text["index.quoted.release"].format(project=project, releases=releases))
        else:
            groups.append(text["index.quoted"].format(project=project))
    label = _LABELS.get(lang, _LABELS["en"])[1].join(groups)
    message = _message(wording.message, lang)
    return f'{message} <small class="mx-printed">{html.escape(label, quote=False)}</small>' if groups else message


def _message(message: str, lang: str) -> str:
    """A wording in code font; an exception raised without a message (``NotImplementedError`` alone) says so
    in the reader's words instead: there is nothing to copy."""
    return code_span(message) if message else f"*{texts(lang)['index.no-message']}*"


def _links(places: list[Shown], here: str, lang: str = "en") -> str:
    """The page's title linking to its first cell that shows the error; its other cells by number.

    A link to a recorded output is followed by the recording's device: ``(H200)``.
    """
    _, around = _PUNCTUATION.get(lang, _PUNCTUATION["en"])
    url = posixpath.relpath(places[0].page, posixpath.dirname(here) or ".")

    def device(place: Shown) -> str:
        if place.recorded == "quoted":
            return around.format(texts(lang)["index.quoted.link"])
        return around.format(place.recorded) if place.recorded else ""

    first = f"[{_escape(places[0].title)}]({url}#{places[0].anchor})" + device(places[0])
    more = " ".join(f"[{n}]({url}#{p.anchor})" + device(p) for n, p in enumerate(places[1:], start=2))
    return first + (around.format(more) if more else "")


def _escape(text: str) -> str:
    return re.sub(r"([\[\]])", r"\\\1", text)
