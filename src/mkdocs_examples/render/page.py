"""Turn an example and its recorded result into Markdown for a page.

Code and output go into fenced blocks, so the highlighter escapes every character
of them; the only raw HTML written here is built from escaped values. The take-away line
(downloads, notebook view, Colab) goes under the page's title.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace

from mkdocs_examples import html_parse
from mkdocs_examples.recordings.store import Published, release
from mkdocs_examples.render.attribution import View, attribute, key
from mkdocs_examples.render.checks import spans
from mkdocs_examples.render.fences import fence
from mkdocs_examples.render.provenance import BUILD, Source, Sources, device_label, inline, parts
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source import comments
from mkdocs_examples.source.cells import Cell, Example, claimed
from mkdocs_examples.source.holds import Holds
from mkdocs_examples.source.markdown import Markdown, Replacement
from mkdocs_examples.texts import text as texts


def render_example(
    example: Example,
    result: Result | None,
    cell: str | None,
    *,
    lang: str,
    limit: int,
    published: tuple[Published, ...] = (),
    sources: Sources | None = None,
) -> str:
    """Markdown for the whole example, or for its cell named ``cell``; code alone when ``result`` is None.

    ``published``: recordings of the example made in other environments (devices, torch
    releases, Pythons). What differs is attributed (render/attribution.py): outputs that differ
    by device within one torch release and Python show as tabs ("CPU | CUDA"); any other
    difference is a folded note naming its environments; the same output (noise aside) shows
    once; a stale recording is never shown. Each output has a short label naming its
    environment; ``sources`` collects those environments, which the page then says once in words
    (:meth:`Sources.block`).
    """
    text = texts(lang)
    example = comments.translated(example, lang)  # its comments in the reader's language
    sources = Sources(lang=lang, site=result.env if result else None) if sources is None else sources
    chosen = [example.cell(cell)] if cell else list(example.cells)
    cell_results = {r.cell: r for r in result.cells} if result else {}
    built = Source(BUILD, result.env if result else {}, None)
    parts: list[str] = []
    titled = False
    for item in chosen:
        if item.has("remove-cell"):
            continue
        parts.append(f'<div class="mx-anchor" id="{anchor(example, item.index)}"></div>')  # the error index links here
        if not item.has("remove-input"):
            title, titled = (None if titled else example.display), True  # the first code shown has the file name
            parts.append(fence(item.source, "python", title=title, linenums=item.lineno))
        parts += [holds_note(holds, text) for holds in declared(example, item)]
        if not item.output_shown or item.index not in cell_results:
            continue
        mine = cell_results[item.index]
        views: list[View] = [] if mine.skipped else [View(built, mine)]
        for other in published:
            recording = other.recording  # what still holds for the example as it is now
            recorded = recording.cell(item.index) if recording else None
            if not recording or not recorded or recorded.skipped:
                continue
            if item.index in recording.failed_cells:
                continue  # its check failed there (the page's line on checks says so): its output is not the claim
            source = Source(other.environment, recording.env, recording.date, bool(other.unverified))
            views.append(View(source, capped(recorded, limit)))
        varies = not item.compared  # a timing differs on every run: the build's alone, which the picker keeps
        shown = attribute(views[:1] if varies else views)
        path = None if varies else example.path
        alt = comments.words(example, item.alt, lang) if item.alt else None  # what its figures show, in words
        labelled = [_labelled(v, path, item.index, sources, text, limit, alt) for v in shown.tabs]
        if len(shown.tabs) > 1:  # outputs that differ between devices of one environment: one tab each
            parts.append(_tabs([(device_label(v.env), out) for v, out in zip(shown.tabs, labelled, strict=True)]))
        elif shown.tabs:
            parts += labelled[0]
        if shown.tabs:
            parts += [_note(group, text, limit, sources, alt) for group in shown.notes]
        if not views and mine.skipped == "requires-cuda":
            parts.append(_missing(example, [p for p in published if p.device == "cuda"], text))
        elif not views and mine.skipped:  # requires-<module>: no environment with that module has run it
            parts.append(_admonition(item.module or "", html.escape(text["module"].format(module=item.module))))
    return "\n\n".join(parts) + "\n"


def declared(example: Example, item: Cell) -> list[Holds]:
    """The ranges of the checks whose claim is about ``item`` (source/holds.py; source/cells.py ``claimed``): its
    own, those of the hidden check right after it, and those that name it with ``about=``, each once."""
    found: list[Holds] = []
    for cell in example.cells:
        if cell.holds is None or cell.holds in found:
            continue
        about = claimed(example, cell)
        if about is not None and about.index == item.index:
            found.append(cell.holds)
    return found


def holds_note(holds: Holds, text: dict[str, str]) -> str:
    """The line beside a claim that holds on some releases only: "The claim checked here holds on torch 2.8 and
    later." """
    body = html.escape(text["holds.note"].format(range=holds.words(text)))
    return f'<p class="mx-holds" data-search-exclude><small>{body}</small></p>'


def render_downloads(root: str, example: Example, colab: str | None, *, lang: str, view: str | None = None) -> str:
    """A line of links to the example's downloads (under ``root``, the site's root as seen from the page),
    for the top of the page (:func:`under_title`), as pytorch.org's tutorials put theirs.

    ``view``: the URL of the example's notebook view, if the site has one (publish/notebook_views.py).
    """
    text = texts(lang)
    base = html.escape(f"{root}downloads/{example.path.removesuffix('.py')}")
    links = [
        f'<a href="{base}.py" download>{text["script"]}</a>',
        f'<a href="{base}.ipynb" download>{text["notebook"]}</a>',
    ]
    if view:
        links.append(f'<a href="{html.escape(view)}">{text["view"]}</a>')
    if colab:
        links.append(f'<a href="{html.escape(colab)}">{text["colab"]}</a>')
    return f'<p class="mx-downloads" data-search-exclude>{text["download"]} ' + " · ".join(links) + "</p>\n"


def under_title(page: Markdown, html_text: str) -> Replacement:
    """``html_text`` (a block of raw HTML) put under ``page``'s first ``# Title`` outside fenced code; at its top if
    it has none (a title from the front matter or the nav)."""
    at = 0 if page.title is None else page.title + 1
    return Replacement(at, at, ("", html_text.rstrip("\n"), ""))


# the anchor of a code block's line: `__codelineno-<block>-<line>` (an id, or a link to one)
_LINE_ANCHOR = re.compile(r"#?__codelineno-\d+-(\d+)")


def link_titles(html_text: str, repository: str, known: set[str], branch: str = "main") -> str:
    """``html_text`` with the title of each code block of a ``known`` example linking to its file and line."""
    titles = [
        title for title in html_parse.find_all(html_text, "span", holding="filename")
        if title.attrs.get("class") == "filename" and title.inner in known
    ]  # fmt: skip
    if not titles:
        return html_text
    blocks = html_parse.find_all(html_text, "pre")
    anchors = [a for a in html_parse.find_all(html_text, "a") if any(map(_LINE_ANCHOR.fullmatch, _values(a)))]

    def link(title: html_parse.Element) -> str:
        url = f"{repository}/blob/{branch}/{title.inner}"
        if (line := _first_line(title, blocks, anchors)) is not None:
            url += f"#L{line}"
        return f'{title.start_tag}<a href="{html.escape(url)}">{title.inner}</a>{title.end_tag}'

    return html_parse.rewrite(html_text, link, titles)


def _values(element: html_parse.Element) -> list[str]:
    return [value or "" for value in element.attrs.values()]


def _first_line(
    title: html_parse.Element, blocks: list[html_parse.Element], anchors: list[html_parse.Element]
) -> str | None:
    """The number of the first line of the code block ``title`` names, where the block numbers its lines: from the
    first line anchor in the first ``<pre>`` after the title (its line numbers', or its code's)."""
    block = next((pre for pre in blocks if pre.start > title.start), None)
    if block is None:
        return None
    for anchor in anchors:
        if block.start < anchor.start < block.end:
            return next(m[1] for value in _values(anchor) if (m := _LINE_ANCHOR.fullmatch(value)))
    return None


def github(url: str | None) -> str | None:
    """``https://github.com/owner/repo`` for a repository on GitHub; None otherwise."""
    found = re.match(r"https://github\.com/[\w.-]+/[\w.-]+", url or "")
    return found[0].removesuffix(".git") if found else None


def branch(edit_uri: str | None) -> str:
    """The branch pages are edited on, from MkDocs' ``edit_uri`` (``edit/<branch>/docs/``); main otherwise."""
    found = re.match(r"/?(?:edit|blob|tree)/([^/]+)/", edit_uri or "")
    return found[1] if found else "main"


def anchor(example: Example, cell: int) -> str:
    """The id of a cell's place on a page (its code, or its output), the same wherever it is embedded."""
    name = example.cells[cell].name or str(cell)
    return "ex-" + re.sub(r"[^A-Za-z0-9]+", "-", f"{example.path.removesuffix('.py')}-{name}").strip("-").lower()


def render_error(message: str, *, lang: str) -> str:
    """A visible box with a build error, for pages rendered by `mkdocs serve`."""
    title = texts(lang)["failed"]
    body = fence(message, "text")
    return (
        f'!!! failure "{title}"\n\n' + "\n".join("    " + line if line else line for line in body.splitlines()) + "\n"
    )


def _missing(example: Example, published: list[Published], text: dict[str, str]) -> str:
    """The note where a CUDA cell's output would be: not recorded yet, or recorded from an older version.

    ``published``: the CUDA recordings (a stale CPU recording of another torch says nothing of the GPU's output).
    """
    stale = next((p.stale for p in published if p.stale), None)
    if stale:
        gpu, date = html.escape(stale.env.get("gpu", stale.device)), html.escape(stale.date)
        note = text["stale"].format(gpu=gpu, date=date)
    else:
        note = html.escape(text["cuda"])
    return _admonition("CUDA", note)


def _admonition(title: str, note: str) -> str:
    """Material's admonition, as HTML, left out of the search index: the same note on many pages is no answer."""
    return (
        '<div class="admonition info" data-search-exclude>\n'
        f'<p class="admonition-title">{html.escape(title)}</p>\n<p>{note}</p>\n</div>'
    )


def _tabs(views: list[tuple[str, list[str]]]) -> str:
    """Material content tabs: one per device, each with its output and its label."""
    tabs = []
    for label, outputs in views:
        body = "\n\n".join(outputs)
        tabs.append(f'=== "{label}"\n\n' + "\n".join("    " + line if line else line for line in body.splitlines()))
    return "\n\n".join(tabs)


# the class of the folded notes, which the stylesheet sets side by side while they are closed: a cell that ten
# releases print otherwise gets a few rows of titles, not a wall of boxes
OTHER = "mx-other"


def _note(group: list[View], text: dict[str, str], limit: int, sources: Sources, alt: str | None = None) -> str:
    """A folded note: what other environments printed, each named as its label names it. Environments whose outputs
    differ only in the versions each prints of itself are one note (render/attribution.py), which shows the oldest
    release's, as the error index words an error it shows, and says that the others print theirs. ``alt``: what
    its figures show (the cell's ``alt=``)."""
    shown = group[0]  # the group comes oldest first
    named = _named(group, sources, text)
    title = text["prints" if len({sources.name(v.env) for v in group}) == 1 else "print"].format(what=named)
    label = named
    if len({key(v.cell) for v in group}) > 1:  # the same once each one's own versions are out: not all alike
        alike = [v for v in group if key(v.cell) == key(shown.cell)]
        label = text["versions.own"].format(label=_named(alike, sources, text))
    body = "\n\n".join([*_outputs(shown.cell, text, limit, alt),
                         sources.labels([v.source for v in group], label=label, shows=shown.source)])  # fmt: skip
    indented = "\n".join("    " + line if line else line for line in body.splitlines())
    return f'??? note {OTHER} "{inline(title)}"\n\n{indented}'


def _named(views: list[View], sources: Sources, text: dict[str, str]) -> str:
    """The environments of ``views`` in a few words: those whose names differ only in their torch release as one
    name, their releases as a range where they are consecutive (render/checks.py ``spans``): ``torch 2.4\u20132.12,
    2.14.1 and 2.15.0 · CUDA builds without a GPU``; the others after it, each by its name."""
    groups: dict[tuple[tuple[str, ...], bool], list[View]] = {}
    for view in views:
        if "torch" in view.env:
            parted = tuple(parts(view.env, sources.built, sources.lang))
        else:
            parted = (sources.name(view.env),)  # no release to group by: named as it is
        groups.setdefault((parted, view.source.unverified), []).append(view)
    names = []
    for (parted, unverified), alike in groups.items():
        if "torch" not in alike[0].env:
            named = parted[0]
        else:
            releases = list(dict.fromkeys(release(v.env["torch"]) for v in alike))
            many = parts(alike[0].env, sources.built, sources.lang, many=len(releases) > 1)
            named = " · ".join([f"torch {spans(releases, text)}", *many])
        names.append(text["unverified"].format(label=named) if unverified else named)
    return " / ".join(dict.fromkeys(names))


def _labelled(
    view: View, example: str | None, cell: int, sources: Sources, text: dict[str, str], limit: int,
    alt: str | None = None,
) -> list[str]:
    """A view's outputs and the label that names their environment (none where it printed nothing); with
    ``example``, a label the torch picker may change (:meth:`Sources.label`); ``alt``: what its figures show."""
    outputs = _outputs(view.cell, text, limit, alt)
    return [*outputs, sources.label(view.source, example=example, cell=cell)] if outputs else []


def capped(cell: CellResult, limit: int) -> CellResult:
    """A recorded cell cut as this build cuts its own outputs: a recording was made under options of its own."""
    if len(cell.output) <= limit and len(cell.traceback or "") <= limit:
        return cell
    cut = max(0, len(cell.output) - limit)
    traceback = cell.traceback
    if traceback is not None and len(traceback) > limit:
        traceback = traceback[:limit] + f"\n[… {len(traceback) - limit} more characters]"
    return replace(cell, output=cell.output[:limit], truncated=cell.truncated + cut, traceback=traceback)


def _outputs(cell: CellResult, text: dict[str, str], limit: int, alt: str | None = None) -> list[str]:
    """The Markdown of a cell's outputs: its text, its traceback, its figures, each figure's ``alt`` text the cell's
    ``alt=`` in the reader's language (numbered where there are several), "Figure 1" where it gives none."""
    parts = []
    output = cell.output
    if cell.truncated:
        output = output.rstrip("\n") + "\n" + text["cut"].format(n=cell.truncated, limit=limit)
    if output.strip():
        parts.append(fence(output.rstrip("\n"), "text", title=text["output"]))
    if cell.traceback:
        parts.append(fence(cell.traceback.rstrip("\n"), "pytb", title=text["exception"]))
    for number, image in enumerate(cell.images, start=1):
        if alt is None:
            words = f"{text['figure']} {number}"
        elif len(cell.images) > 1:
            words = text["figure.of"].format(alt=alt, n=number, count=len(cell.images))
        else:
            words = alt
        parts.append(f"![{_alt(words)}](data:image/png;base64,{image})")
    return parts


def _alt(words: str) -> str:
    """``words`` as the text of a Markdown image: plain (a code span's backticks dropped), nothing read into it."""
    return re.sub(r"([\\\[\]*_])", r"\\\1", words.replace("`", ""))
