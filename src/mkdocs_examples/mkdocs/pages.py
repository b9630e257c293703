"""MkDocs' pages, files and templates, as the engine's core takes them.

- the pages MkDocs builds that embed examples (:func:`read_pages`) and a page's title as MkDocs gives it;
- one page's Markdown: a MkDocs ``Page`` to the plain values of ``page_markdown`` (:func:`page_of`);
- the notebook views' ``File`` objects, mkdocs-jupyter's plugin and cache, and the views' pages
  (publish/notebook_views.py makes their notebooks and HTML);
- the site's templates in the Jinja sandbox (templates.py), whose refusal is MkDocs' ``PluginError``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files, InclusionLevel, get_files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.meta import get_data

from mkdocs_examples import page_markdown, templates
from mkdocs_examples.mkdocs import i18n, upstream
from mkdocs_examples.publish import notebook_views
from mkdocs_examples.publish.notebook_views import View
from mkdocs_examples.recordings.store import Recording
from mkdocs_examples.results import Result
from mkdocs_examples.source.blocks import Block, fenced_lines, find_blocks
from mkdocs_examples.source.cells import Example

_TITLE = re.compile(r"# +(.+?) *#*$")


# What :func:`read_pages` found in each page, for the next call (`mkdocs serve`'s rebuilds): ``src_uri``: the
# page's Markdown, and its title and blocks (no blocks: None)
Read = dict[str, tuple[str, tuple[str, list[Block]] | None]]


def read_pages(config: MkDocsConfig, *, serving: bool, kept: Read | None = None) -> dict[str, tuple[str, list[Block]]]:
    """The pages that embed examples, by ``src_uri``: each one's title and blocks. As MkDocs finds them:
    ``exclude_docs`` left out, and ``draft_docs`` too except under `mkdocs serve` (which shows drafts).
    ``kept``: what an earlier call found, taken for each page whose Markdown is the same, and updated."""
    pages = {}
    wanted = InclusionLevel.is_in_serve if serving else InclusionLevel.is_included
    seen = set()
    for file in sorted(get_files(config).documentation_pages(inclusion=wanted), key=lambda f: f.src_uri):
        markdown = Path(file.abs_src_path or "").read_text(encoding="utf-8")
        seen.add(file.src_uri)
        known = kept.get(file.src_uri) if kept is not None else None
        if known is not None and known[0] == markdown:
            found = known[1]
        else:
            blocks = find_blocks(markdown)
            found = (title_of(markdown, Path(file.src_uri).stem), blocks) if blocks else None
            if kept is not None:
                kept[file.src_uri] = (markdown, found)
        if found is not None:
            pages[file.src_uri] = found
    if kept is not None:
        for gone in kept.keys() - seen:
            del kept[gone]
    return pages


def title_of(markdown: str, fallback: str) -> str:
    """A page's title as MkDocs gives it, as the error index, the changes page and notebook views name the
    page: its front matter's ``title``, else its first level-one heading outside front matter and fenced
    code (a YAML comment or a Python comment starts with ``# `` too), else ``fallback``."""
    body, meta = get_data(markdown)
    if isinstance(meta.get("title"), str) and meta["title"].strip():
        return meta["title"].strip()
    code = fenced_lines(body)
    for index, line in enumerate(body.splitlines()):
        if index not in code and (found := _TITLE.match(line)):
            return found[1].strip()
    return fallback


def page_of(page: Page) -> page_markdown.Page:
    """What rendering a page's Markdown needs of MkDocs' ``page``."""
    file = Path(page.file.abs_src_path) if page.file.abs_src_path else None
    return page_markdown.Page(src_uri=page.file.src_uri, url=page.url, meta=page.meta, file=file)


# --- templates ---------------------------------------------------------------------


class TemplateRefused(templates.TemplateRefused, PluginError):
    """A template the sandbox refused, as MkDocs stops a build on it (it renders the templates itself)."""


def sandboxed(env: Environment, root: Path) -> Environment:
    """MkDocs' template environment as the core's Jinja sandbox."""
    return templates.sandboxed(env, root, TemplateRefused)


# --- notebook views ----------------------------------------------------------------


def jupyter(config: MkDocsConfig) -> Any | None:
    """mkdocs-jupyter's plugin instance, where the site configures it."""
    return config.plugins.get(notebook_views.JUPYTER)


def configure(config: MkDocsConfig, root: Path) -> None:
    """mkdocs-jupyter's cache relative to mkdocs.yml, not the current folder; its log lines per notebook quiet.

    Done wherever the site configures mkdocs-jupyter, views or not: at the end of a build
    mkdocs-jupyter deletes every rendering in its cache folder that the build did not use, and
    with its default, relative folder that is the *current* folder's ``.cache/mkdocs-jupyter``
    (a build with ``-f other/mkdocs.yml`` emptied the cache of the project it was started from).
    """
    plugin = jupyter(config)
    assert plugin is not None
    plugin.config["cache_dir"] = str(root / plugin.config["cache_dir"])
    upstream.nbconvert_compile_templates_once()  # it makes an exporter, and compiles its templates, per notebook
    for name in ("mkdocs.plugins.mkdocs_jupyter", "mkdocs.mkdocs-jupyter"):  # its plugin, its converter
        logging.getLogger(name).setLevel(logging.WARNING)


class JupyterCache:
    """mkdocs-jupyter's cache of rendered notebooks, kept across the language builds of one build.

    At the end of each build mkdocs-jupyter deletes the renderings that build did not use. With
    static-i18n every language is a build of its own, so each language's views deleted the other's,
    and every build rendered the views of each language again with nbconvert (about 10 s for this
    site's 108). Its deletion is held off while the languages build (it reads its ``cache`` option
    at the end of a build, the pages read it before), and done once, with what every language used.
    """

    def __init__(self) -> None:
        self.used: set[Path] = set()
        self._held = False

    def hold(self, config: MkDocsConfig) -> None:
        """Before mkdocs-jupyter's ``on_post_build``: keep what this language build used, delete nothing."""
        plugin = jupyter(config)
        if plugin is None or not plugin.config["cache"]:
            return
        self.used |= upstream.jupyter_used_cache(plugin)
        plugin.config["cache"], self._held = False, True

    def release(self, config: MkDocsConfig) -> None:
        """After it, before the next language builds: its pages read the cache again."""
        plugin = jupyter(config)
        if plugin is not None and self._held:
            plugin.config["cache"], self._held = True, False

    def evict(self, config: MkDocsConfig) -> None:
        """Once every language has built: delete the renderings no language used."""
        plugin = jupyter(config)
        if plugin is not None and plugin.config["cache"] and self.used:
            for file in Path(plugin.config["cache_dir"]).glob("*.json"):
                if file not in self.used:
                    file.unlink()
        self.used = set()


def add_views(
    files: Files,
    config: MkDocsConfig,
    *,
    root: Path,
    built: Iterable[tuple[Example, Result, Recording | None]],
    pages: Mapping[str, tuple[str, list[str]]],
    examples_folder: str,
    seed: int = 0,
    threads: int = 1,
) -> dict[str, View]:
    """Add this language build's views to ``files``; what each view's page gets, by its ``src_uri``.

    ``built``: the examples that built, with their results and recordings; ``pages``: the
    title and embedded examples of each page, by ``src_uri``; ``examples_folder``: the
    examples' folder relative to mkdocs.yml, for the edit button.
    """
    plugin = jupyter(config)
    assert plugin is not None
    lang = i18n.build_language(config)
    embedding = _embedding(files, pages)
    added = notebook_views.write(built, root, prefix=i18n.prefix(config), lang=lang, seed=seed, threads=threads)
    folder = str(root / notebook_views.FOLDER)
    notebook_files = [File(name, folder, config.site_dir, config.use_directory_urls) for name in added]
    views: dict[str, View] = {}
    for file in plugin.on_files(Files(notebook_files), config):  # pages now, with their URLs
        if not file.is_documentation_page():
            raise PluginError(
                f"mkdocs-jupyter does not render the notebook views ({file.src_uri}): give it "
                '`include: ["*.ipynb"]` in mkdocs.yml (and no `ignore` that matches them), or set the '
                "examples plugin's option `notebook_views: false`"
            )
        files.append(file)
        example = added[file.src_uri]
        page, title = embedding.get(example.path, (None, example.display))
        edit = notebook_views.edit_url(config.repo_url, config.edit_uri, Path(config.docs_dir), root,
                                       notebook_views.edited(example, lang, examples_folder))  # fmt: skip
        back = get_relative_url(page, file.url) if page is not None else None
        views[file.src_uri] = notebook_views.view(example, file.url, lang=lang, title=title, back=back, edit_url=edit)
    files.append(File.generated(config, notebook_views.CSS, abs_src_path=str(notebook_views.ASSET)))
    return views


def _embedding(files: Files, pages: Mapping[str, tuple[str, list[str]]]) -> dict[str, tuple[str, str]]:
    """Each example's first page (by path) in this language build: its URL and title."""
    found: dict[str, tuple[str, str]] = {}
    for file in sorted(files.documentation_pages(), key=lambda f: f.src_uri):
        if file.src_uri in pages:
            title, examples = pages[file.src_uri]
            for example in examples:
                found.setdefault(example, (file.url, title))
    return found


def alternates(config: MkDocsConfig, view: View) -> None:
    """The language switcher and ``rel=alternate`` of a view's page: the same view in each language.

    Material reads both from ``extra.alternate``, which static-i18n resets for every page of its
    own (one with alternates), and points at the page's twins: a view's page is not one of its
    own, so the list is set here, anew (the next page of static-i18n's resets it again).
    """
    path = f"{notebook_views.URL}/{view.example.removesuffix('.py')}/"
    extra = config.extra
    links = [
        dict(alternate, link=f"{i18n.prefix(config, alternate['lang'])}{path}") if alternate.get("lang") else alternate
        for alternate in getattr(extra, "alternate", None) or extra.get("alternate") or []
    ]
    # static-i18n sets the attribute (a Config is a dict, whose items are no attributes), which
    # Jinja's `config.extra.alternate` reads before the item
    extra.alternate = links  # type: ignore[attr-defined]
    extra["alternate"] = links


def view_content(html_text: str, page: Page, view: View) -> str:
    """A view's page: its title, description and edit URL, out of search, and its link back."""
    page.meta["search"] = {"exclude": True}  # the page that embeds the example is the one to find
    page.edit_url = view.edit_url
    page.title = view.title
    page.meta["description"] = view.description
    return notebook_views.with_back_link(html_text, view)
