"""Notebook views: each example's executed notebook as a page of the site, in each language.

On where the site configures the mkdocs-jupyter plugin (and the plugin's option
``notebook_views`` is not false). mkdocs-static-i18n hands mkdocs-jupyter only the files of
the docs folder (its issue #198), so in every language build, once static-i18n has sorted
that language's files, :func:`add` writes one notebook per example that built into
``.cache/notebook-views/`` (never into the docs folder) and has mkdocs-jupyter render it at
``<lang>/notebooks/<path>/`` (the default language at ``notebooks/<path>/``).

- The notebook is the one readers of its language download (publish/notebooks.py): the outputs
  the site shows, CUDA cells from their recordings, the example's notes in the view's language
  where it has them (``# %% [markdown] lang="zh"``), and the notes the engine adds (a GPU
  recording, a cell that needs CUDA, which environment made the outputs) in that language, so
  each language's view is a notebook of its own, which mkdocs-jupyter's cache (keyed by
  content, evicting what a build did not use) renders once and keeps across builds.
- A view's title is that of the first page (by path) that embeds the example in the view's
  language, as plain text (no Markdown: the title of `torch.cat` 与 `torch.stack` showed its
  backticks, in ``<title>`` too), with a link back to it; its edit button edits the example file, in a
  language that translates the example's comments the file of that translation (:func:`edited`).
- The language switcher and ``rel=alternate`` of a view go to the same view in the other
  languages (:func:`alternates`): static-i18n sets them from the alternates of a page's file,
  which a view's file has not (they kept the links of the page rendered before it).
- mkdocs-jupyter inlines JupyterLab's stylesheets, about 590 KB, into every page: :func:`served`
  drops them and links one small stylesheet of ours (the package asset ``notebook_views.css``),
  and makes each cell's code and output a tab stop, for a keyboard to scroll.
- Views are kept out of search (``search: exclude``, which Material's search honours): the
  page that embeds the example is the one to find.
- The page's take-away line links the view (render/page.py): its ``url``.

This module makes the notebooks and the HTML from plain values; what takes MkDocs' files, pages and
plugins (mkdocs-jupyter's, static-i18n's) is the adapter's, mkdocs/pages.py.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mkdocs_examples import html_parse, texts
from mkdocs_examples.publish import notebooks
from mkdocs_examples.recordings.store import Recording
from mkdocs_examples.results import Result
from mkdocs_examples.source import comments
from mkdocs_examples.source.cells import Example
from mkdocs_examples.source.pages import plain
from mkdocs_examples.texts import text

JUPYTER = "mkdocs-jupyter"  # the plugin's name under `plugins:`
FOLDER = ".cache/notebook-views"  # relative to mkdocs.yml: the notebooks mkdocs-jupyter renders
URL = "notebooks"  # views are at <lang>/notebooks/<example path without .py>/
CSS = "assets/notebook-views.css"
ASSET = Path(__file__).parent.parent / "assets" / "notebook_views.css"


@dataclass(frozen=True)
class View:
    """What a view's page gets beside the notebook mkdocs-jupyter renders."""

    example: str  # the example's path under the examples folder
    url: str  # the view's URL, relative to the site's root
    title: str
    description: str
    back: str | None  # the page that embeds the example, relative to the view
    back_label: str
    edit_url: str | None  # the example file in the repository


def write(
    built: Iterable[tuple[Example, Result, Recording | None]], root: Path, *, prefix: str, lang: str, seed: int = 0,
    threads: int = 1,
) -> dict[str, Example]:
    """Write each built example's notebook in language ``lang`` (``prefix``: its folder) under ``root/FOLDER``;
    the examples by their notebook's path there (the view's ``src_uri``)."""
    added: dict[str, Example] = {}
    for example, result, recorded in built:
        name = f"{prefix}{URL}/{example.path.removesuffix('.py')}.ipynb"
        nb = notebooks.notebook(example, result, recorded, lang=lang, seed=seed, threads=threads)
        _write(root / FOLDER / name, notebooks.dumps(nb))
        added[name] = example
    return added


def view(example: Example, url: str, *, lang: str, title: str, back: str | None, edit_url: str | None) -> View:
    """The view of ``example`` at ``url``; ``title``: that of the page that embeds it (Markdown), ``back``: that
    page relative to the view."""
    words = text(lang)
    title = plain(title)
    return View(
        example=example.path,
        url=url,
        title=words["view.title"].format(title=title),
        description=words["view.description"].format(title=title),
        back=back,
        back_label=words["view.back"],
        edit_url=edit_url,
    )


def _write(path: Path, content: str) -> None:
    """Write only what changed: an unchanged notebook keeps its file as it is."""
    if not path.exists() or path.read_text(encoding="utf-8") != content:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def edit_url(repo_url: str | None, edit_uri: str | None, docs_dir: Path, root: Path, path: str) -> str | None:
    """The edit URL of ``path`` (relative to mkdocs.yml), from the site's ``edit_uri`` for its docs folder.

    ``edit_uri`` names the docs folder (``edit/main/docs/``): the file's URL replaces that
    folder by the file's path. None where there is none, or where ``edit_uri`` does not end
    with the docs folder's path.
    """
    if not repo_url or not edit_uri:
        return None
    edit = edit_uri if "://" in edit_uri else f"{repo_url.rstrip('/')}/{edit_uri}"
    try:
        docs = docs_dir.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    edit = edit.rstrip("/")
    if not edit.endswith(f"/{docs}"):
        return None
    return f"{edit.removesuffix(docs)}{path}"


def edited(example: Example, lang: str, folder: str) -> str:
    """The file a view's edit button opens (relative to mkdocs.yml; ``folder``: the examples folder): in a
    language that translates the example's comments, the file of that translation (source/comments.py),
    which holds what the view shows in its language beside the notes; else the example itself."""
    translation = comments.file_of(example, lang)
    if lang != texts.DEFAULT and translation.is_file():
        return f"{folder}/{Path(example.path).with_name(translation.name).as_posix()}"
    return f"{folder}/{example.path}"


def with_back_link(html_text: str, view: View) -> str:
    """A view's content, with its link back to the page that embeds the example."""
    if view.back is None:
        return html_text
    return f'<p><a href="{html.escape(view.back)}">{view.back_label}</a></p>\n' + html_text


def served(output: str, url: str) -> str:
    """A view's page (at ``url``) as the site serves it: without JupyterLab's inline stylesheets (574 KB a
    page), with the small one of ours; each cell's code and output a ``<code>`` in its ``<pre>``, as in the
    site's pages, which Material gives its copy button, and a tab stop, so that a keyboard reader scrolls one
    wider than the screen (axe: scrollable-region-focusable), as the site's pages make their code blocks
    (the plugin examples-pages). The notebook's styles and blocks (each a bare ``<pre>``) are all in the content."""
    # the page's head, and the styles and blocks of its content (Material's article): the rest is not read
    articles = html_parse.find_all(output, "article", start_only=True)
    start = articles[0].start if articles else len(output)
    content = [e for tag in ("style", "pre") for e in html_parse.find_all(output, tag) if e.start > start]
    found = html_parse.find_all(output, "head")[:1] + sorted(content, key=lambda element: element.start)
    stylesheet = f'<link rel="stylesheet" href="{"../" * url.count("/")}{CSS}">\n'
    # each block an id of its own: Material names a block by the id of its nearest element that has one (a
    # cell's, which its code and output share), and its copy button copies the block of that name
    blocks = itertools.count()

    def edit(element: html_parse.Element) -> str | None:
        if element.tag == "head":
            return f"{element.start_tag}{element.inner}{stylesheet}{element.end_tag}"
        if element.tag == "style":
            return ""
        if element.tag == "pre" and element.start_tag == "<pre>":
            return f'<pre id="block-{next(blocks)}"><code tabindex="0">{element.inner}</code>{element.end_tag}'
        return None

    return html_parse.rewrite(output, edit, found, tidy=True)
