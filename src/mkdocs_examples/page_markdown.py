"""One page's Markdown, as the plugin's ``on_page_markdown`` hands it over and gets it back, from plain values
(the MkDocs adapter turns its ``Page`` into a :class:`Page` of this module: mkdocs/pages.py).

The page is parsed once (source/markdown.py); each step reads that parse and says what goes in place of
which of its lines, and the page is made of all of them in one pass. In order: the ``quoted-error`` boxes,
the generated lists the page asks for by their markers (the error index, the page of
changes between torch releases), then each ``/// example`` block replaced by its code and
outputs (render/page.py) or by an error box, the take-away lines placed (under the title, or
under each example's first block where the front matter says ``take_away: under-example``),
and at the end the block of environments the outputs come from and the line on the torch
releases the examples were checked on.

`mkdocs serve` renders every page again on each rebuild, most of them from what the last build
rendered them from: :class:`Kept` holds each page's Markdown with all it was made of (the page,
its examples, their outcomes and recordings; for the generated lists, those of every page), and a
page made of the same is not rendered again.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mkdocs_examples.build import Build
from mkdocs_examples.publish import changes, downloads, error_index
from mkdocs_examples.render.checks import differing, render_checks
from mkdocs_examples.render.page import anchor, render_error, render_example, under_title
from mkdocs_examples.render.provenance import Sources
from mkdocs_examples.results import SiteError
from mkdocs_examples.source.blocks import Block
from mkdocs_examples.source.cells import Example, ExampleError, read_example
from mkdocs_examples.source.markdown import Markdown, Replacement, in_place_of, parse
from mkdocs_examples.texts import text as texts


@dataclass(frozen=True)
class Page:
    """What rendering needs of one page."""

    src_uri: str  # its path under the docs folder: ``zh/tensors/views.md``
    url: str  # its URL, relative to the site's root
    meta: Mapping[str, Any]  # its front matter
    file: Path | None  # its Markdown file


@dataclass(frozen=True)
class Site:
    """What rendering a page needs of the site's configuration, fixed for one build."""

    running: bool  # examples run (false with `enabled: false`: pages show the code only)
    serving: bool  # under `mkdocs serve`: a broken block is shown on its page instead of stopping the build
    examples_dir: Path
    folder: str  # the examples folder as the site names it (option `examples_dir`)
    limit: int  # option `max_output`
    repository: str | None  # the site's repository on GitHub, if it is there
    branch: str
    warn: Callable[[str], None]  # a warning of the build (which fails a strict build)


@dataclass
class Kept:
    """What :func:`render` made in the last build, by what it was made of, for the next build (`mkdocs serve`)."""

    pages: dict[tuple[str, str], tuple[tuple[Any, ...], str]] = field(default_factory=dict)  # page, language
    lists: dict[tuple[str, str, str], tuple[tuple[Any, ...], str]] = field(default_factory=dict)  # list, page, lang
    # what each generated list found on each page it lists, for the pages an edit left as they were: language
    found_errors: dict[str, error_index.Memo] = field(default_factory=dict)
    found_changes: dict[str, changes.Memo] = field(default_factory=dict)


def render(
    markdown: str, *, page: Page, lang: str, prefix: str, build: Build, site: Site, views: dict[str, str],
    kept: Kept | None = None,
) -> str:  # fmt: skip
    """``page``'s Markdown in language ``lang`` (``prefix``: its folder), rendered; ``views``: example path:
    the URL of its notebook view in this language build; ``kept``: what earlier builds rendered."""
    parsed = parse(markdown)
    lists = parsed.markers  # made of every page: kept apart
    if kept is None or lists or not site.running:  # without running, a block reads its example's file
        return _render(parsed, page=page, lang=lang, prefix=prefix, build=build, site=site, views=views, kept=kept)
    paths = dict.fromkeys([*(b.path for b in parsed.blocks), *(m["path"] for m in HOLDS.finditer(markdown))])
    # copies of what others change after this event: hooks add to a page's front matter
    inputs = (markdown, replace(page, meta=copy.deepcopy(dict(page.meta))), prefix, site, dict(views), build.docs,
              dict(build.site_env()), [_state(build, p) for p in paths])  # fmt: skip
    found = kept.pages.get((page.src_uri, lang))
    if found is not None and found[0] == inputs:
        return found[1]
    warned: list[str] = []

    def warn(message: str) -> None:
        warned.append(message)
        site.warn(message)

    made = _render(parsed, page=page, lang=lang, prefix=prefix, build=build, site=replace(site, warn=warn),
                   views=views, kept=kept)  # fmt: skip
    if not warned:  # a page that warned warns again in the next build
        kept.pages[page.src_uri, lang] = (inputs, made)
    return made


def _state(build: Build, path: str) -> tuple[Any, ...]:
    """What a page's blocks of example ``path`` are made of: the example, its result and its recordings."""
    outcome = build.outcomes.get(path)
    return (build.examples.get(path), outcome.result if outcome else None,
            build.recordings.of(path) if build.recordings else None)  # fmt: skip


def _render(
    parsed: Markdown, *, page: Page, lang: str, prefix: str, build: Build, site: Site, views: dict[str, str],
    kept: Kept | None = None,
) -> str:  # fmt: skip
    made = error_index.quote_boxes(parsed, build.site_env().get("torch", ""), lang)
    made += _ranges(parsed, build, site, page, lang)
    if site.running:
        lists = {"error-index": lambda: _error_index(build, page, lang, kept),
                 "torch-changes": lambda: _changes(build, site, page, lang, kept)}  # fmt: skip
        made += [Replacement(m.start, m.start + 2, (lists[m.name](),)) for m in parsed.markers]
    blocks = parsed.blocks
    if not blocks:
        return parsed.replaced(made)
    built = [e for path in dict.fromkeys(b.path for b in blocks)
             if isinstance(e := build.examples.get(path), Example) and build.downloadable(path)]  # fmt: skip
    lines = downloads.take_away(
        built, page_url=page.url, prefix=prefix, lang=lang, views=views, repository=site.repository, branch=site.branch
    )
    at_top = _take_away_at_top(page, build, site)
    firsts = {b.path: b for b in reversed(blocks)}  # the first block of each example on the page
    sources = Sources(lang=lang, site=build.site_env())  # the environments of the page's outputs, said once at its end

    def one(block: Block) -> Replacement:
        text = _block(build, site, page.src_uri, block, lang, sources)
        if not at_top and firsts[block.path] is block and block.path in lines:
            text += "\n" + lines[block.path]
        return in_place_of(block, text)

    made += [one(block) for block in blocks]
    if at_top and lines:  # under the title, where a reader looks for them
        made.append(under_title(parsed, "".join(lines.values())))
    return parsed.replaced(made) + sources.block(lang) + _checks(build, site, blocks, lang)


# In prose, a check's declared range in the reader's words: ``[holds: tensors/indexing.py#gather-int32-checks]``
HOLDS = re.compile(r"\[holds: *(?P<path>[\w./-]+\.py)#(?P<cell>[A-Za-z0-9][\w-]*) *\]")


def _ranges(parsed: Markdown, build: Build, site: Site, page: Page, lang: str) -> list[Replacement]:
    """Each line of prose that names a check's range (:data:`HOLDS`) with the range in words ("torch 2.8 and
    later"), from the cell's ``holds=`` (source/holds.py): the version the prose states is the one the build checks
    against every recording. A mark that names no such cell fails a strict build."""
    made = []
    taken = {i for b in parsed.blocks for i in range(b.start, b.end + 1)} | set(parsed.fenced)
    for number, line in enumerate(parsed.lines):
        if number in taken or "[holds:" not in line:
            continue
        pieces, at = [], 0
        for found in HOLDS.finditer(line):
            if line[: found.start()].count("`") % 2:  # in inline code: the syntax shown, not used
                continue
            words = _range_words(found["path"], found["cell"], build, site, page, number + 1, lang)
            pieces += [line[at : found.start()], words if words is not None else found[0]]
            at = found.end()
        if pieces:
            made.append(Replacement(number, number + 1, ("".join(pieces) + line[at:],)))
    return made


def _range_words(path: str, name: str, build: Build, site: Site, page: Page, line: int, lang: str) -> str | None:
    """The range cell ``name`` of example ``path`` declares, in ``lang``'s words; None, and a warning, where it has
    none."""
    where = f"{build.shown(page.src_uri)}:{line}"
    try:
        loaded = build.examples.get(path)
        example = loaded if isinstance(loaded, Example) else read_example(site.examples_dir, path, site.folder)
        cell = example.cell(name)
    except ExampleError as error:
        site.warn(f"{where}: [holds: {path}#{name}]: {error}")
        return None
    if cell.holds is None:
        site.warn(f'{where}: [holds: {path}#{name}] names a cell that declares no range: add e.g. holds=">=2.8" to '
                  f"its `# %%` line ({example.display}:{cell.header or cell.lineno}), or state no version")
        return None
    return cell.holds.words(texts(lang))


def _take_away_at_top(page: Page, build: Build, site: Site) -> bool:
    """Where the page's front matter puts its take-away lines (``take_away``): ``top`` (the default),
    or ``under-example``, under the first block of each example (a page whose example is an aside)."""
    where = page.meta.get("take_away", "top")
    if where not in ("top", "under-example"):
        site.warn(
            f"{build.shown(page.src_uri)}: front matter `take_away: {where}` is neither `top` nor "
            "`under-example`; the take-away line goes at the top"
        )
    return where != "under-example"


def _block(build: Build, site: Site, src_uri: str, block: Block, lang: str, sources: Sources) -> str:
    """One block's Markdown: the example's code and outputs, or an error box saying what is wrong."""
    page = build.shown(src_uri)
    if not site.running:  # disabled: show the code, run nothing
        try:
            if block.error:
                raise ExampleError(page, block.line, block.error)
            example = read_example(site.examples_dir, block.path, site.folder)
            return render_example(example, None, block.cell, lang=lang, limit=site.limit)
        except ExampleError as error:
            message = str(error) if error.path == page else f"{page}:{block.line}: {error}"
            site.warn(message)  # fails a strict build, as with the plugin enabled
            return render_error(message, lang=lang)
    problem = build.problem(src_uri, block)
    if problem:
        return render_error(problem, lang=lang)
    loaded = build.examples.get(block.path)
    outcome = build.outcomes.get(block.path)
    if not isinstance(loaded, Example) or outcome is None:  # added to the page since pre-build, or lost
        message = f"{page}:{block.line}: example {block.path} was not run in this build"
        if not site.serving:  # a page must never be published without the output it claims
            raise SiteError(f"{message}; build again, and report it if it happens twice")
        return render_error(message, lang=lang)
    return render_example(
        loaded, outcome.result, block.cell, lang=lang, limit=site.limit,
        published=build.recordings.of(loaded.path) if build.recordings else (), sources=sources,
    )  # fmt: skip


def _checks(build: Build, site: Site, blocks: Sequence[Block], lang: str) -> str:
    """The line on the torch releases the page's examples were checked on, where recordings add any."""
    recorded, elsewhere, declared, differ, lacking = {}, {}, {}, set(), {}
    examples: dict[str, Example] = {}
    places: dict[str, str] = {}  # `path#index` of each cell the page shows: its anchor, where a check links to
    for block in blocks:
        example = build.examples.get(block.path)
        if not isinstance(example, Example):
            continue
        chosen = [c for c in example.cells if block.cell in (None, c.name) and not c.has("remove-cell")]
        places.update({f"{block.path}#{c.index}": anchor(example, c.index) for c in chosen})
        if block.path in build.outcomes and block.path not in examples:
            examples[block.path] = example
            recorded[block.path] = build.checked(example)
            elsewhere[block.path] = build.checked_elsewhere(example)
            declared[block.path] = build.verdicts(example)
            differ |= differing(example, build.outcomes[block.path].result, recorded[block.path])
            skipped = {c.skipped for c in build.outcomes[block.path].result.cells} - {None, "requires-cuda"}
            if skipped:  # cells of a module the build could not import (requires-<module>)
                lacking[block.path] = min(s.removeprefix("requires-") for s in skipped if s)
    if not any(recorded.values()):
        return ""
    return render_checks(build.site_env(), recorded, site.folder, lang=lang, differ=differ, elsewhere=elsewhere,
                         declared=declared, examples=examples, places=places, lacking=lacking)  # fmt: skip


def _error_index(build: Build, page: Page, lang: str, kept: Kept | None = None) -> str:
    """The index of the errors shown on the pages of ``page``'s language tree."""
    pages, here = build.tree(page.src_uri, lang)
    results = {path: [o.result, *build.recorded_results(o.example)] for path, o in build.outcomes.items()}
    root = (page.file or Path()).parent  # the language tree's folder: ``here``'s path taken off
    for _ in Path(here).parts[:-1]:
        root = root.parent
    quoted = {path: found for path in pages if (file := root / path).is_file()
              and (found := error_index.quotes(parse(file.read_text(encoding="utf-8"))))}  # fmt: skip
    examples = build.loaded()

    def make() -> str:
        memo = kept.found_errors.setdefault(lang, {}) if kept is not None else None
        return error_index.render(error_index.collect(pages, examples, results, quoted, memo, lang), here, lang)

    return _list(kept, "error-index", page, lang, (pages, here, examples, results, quoted), make)


def _changes(build: Build, site: Site, page: Page, lang: str, kept: Kept | None = None) -> str:
    """The page "What changed between torch releases" of ``page``'s language tree (publish/changes.py)."""
    pages, here = build.tree(page.src_uri, lang)
    examples = build.loaded()
    done = {path: o.result for path, o in build.outcomes.items() if o.failure is None}
    recorded = {path: build.checked(e) for path, e in examples.items()}
    uninstallable = build.recordings.uninstallable if build.recordings else []
    env = build.site_env()

    def make() -> str:
        memo = kept.found_changes.setdefault(lang, {}) if kept is not None else None
        found = changes.collect(pages, examples, done, recorded, uninstallable, memo)
        return changes.render(found, env, here, site.folder, lang)

    return _list(kept, "changes", page, lang, (pages, here, examples, done, recorded, uninstallable, env,
                                                site.folder), make)  # fmt: skip


def _list(kept: Kept | None, name: str, page: Page, lang: str, inputs: tuple[Any, ...], make: Callable[[], str]) -> str:
    """A generated list (``name``) of ``page``: made by ``make``, or kept from the last build made of the same
    ``inputs`` (every page's blocks, examples, outcomes and recordings: what the list reads)."""
    if kept is None:
        return make()
    key = (name, page.src_uri, lang)
    found = kept.lists.get(key)
    if found is not None and found[0] == inputs:
        return found[1]
    made = make()
    kept.lists[key] = (inputs, made)
    return made
