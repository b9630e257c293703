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
  backticks, in ``<title>`` too), with a link back to it; its edit button edits the example file.
- The language switcher and ``rel=alternate`` of a view go to the same view in the other
  languages (:func:`alternates`): static-i18n sets them from the alternates of a page's file,
  which a view's file has not (they kept the links of the page rendered before it).
- mkdocs-jupyter inlines JupyterLab's stylesheets, about 590 KB, into every page: :func:`slim`
  drops them and links one small stylesheet of ours (the package asset ``notebook_views.css``).
- Views are kept out of search (``search: exclude``, which Material's search honours): the
  page that embeds the example is the one to find.
- The page's take-away line links the view (render/page.py): its ``url``.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from mkdocs_examples import i18n
from mkdocs_examples.publish import notebooks
from mkdocs_examples.recordings.store import Recording
from mkdocs_examples.results import Result
from mkdocs_examples.source.cells import Example
from mkdocs_examples.source.pages import plain
from mkdocs_examples.texts import text

JUPYTER = "mkdocs-jupyter"  # the plugin's name under `plugins:`
FOLDER = ".cache/notebook-views"  # relative to mkdocs.yml: the notebooks mkdocs-jupyter renders
URL = "notebooks"  # views are at <lang>/notebooks/<example path without .py>/
CSS = "assets/notebook-views.css"
ASSET = Path(__file__).parent.parent / "assets" / "notebook_views.css"
_STYLE = re.compile(r"<style[^>]*>.*?</style>\s*", re.S)


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


def jupyter(config: MkDocsConfig) -> Any | None:
    """mkdocs-jupyter's plugin instance, where the site configures it."""
    return config.plugins.get(JUPYTER)


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
        self.used |= {Path(path) for path in plugin._used_cache_paths}
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


def add(
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
    words = text(lang)
    prefix = i18n.prefix(config)
    embedding = _embedding(files, pages)
    added: dict[str, Example] = {}  # src_uri of a view's notebook: its example
    for example, result, recorded in built:
        name = f"{prefix}{URL}/{example.path.removesuffix('.py')}.ipynb"
        nb = notebooks.notebook(example, result, recorded, lang=lang, seed=seed, threads=threads)
        _write(root / FOLDER / name, notebooks.dumps(nb))
        added[name] = example
    notebook_files = [File(name, str(root / FOLDER), config.site_dir, config.use_directory_urls) for name in added]
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
        title = plain(title)
        views[file.src_uri] = View(
            example=example.path,
            url=file.url,
            title=words["view.title"].format(title=title),
            description=words["view.description"].format(title=title),
            back=get_relative_url(page, file.url) if page is not None else None,
            back_label=words["view.back"],
            edit_url=edit_url(config, root, f"{examples_folder}/{example.path}"),
        )
    files.append(File.generated(config, CSS, abs_src_path=str(ASSET)))
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
    path = f"{URL}/{view.example.removesuffix('.py')}/"
    extra = config.extra
    links = [
        dict(alternate, link=f"{i18n.prefix(config, alternate['lang'])}{path}") if alternate.get("lang") else alternate
        for alternate in getattr(extra, "alternate", None) or extra.get("alternate") or []
    ]
    # static-i18n sets the attribute (a Config is a dict, whose items are no attributes), which
    # Jinja's `config.extra.alternate` reads before the item
    extra.alternate = links  # type: ignore[attr-defined]
    extra["alternate"] = links


def _write(path: Path, content: str) -> None:
    """Write only what changed: an unchanged notebook keeps its file as it is."""
    if not path.exists() or path.read_text(encoding="utf-8") != content:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def edit_url(config: MkDocsConfig, root: Path, path: str) -> str | None:
    """The edit URL of ``path`` (relative to mkdocs.yml), from the site's ``edit_uri`` for its docs folder.

    ``edit_uri`` names the docs folder (``edit/main/docs/``): the file's URL replaces that
    folder by the file's path. None where there is none, or where ``edit_uri`` does not end
    with the docs folder's path.
    """
    if not config.repo_url or not config.edit_uri:
        return None
    edit = config.edit_uri if "://" in config.edit_uri else f"{config.repo_url.rstrip('/')}/{config.edit_uri}"
    try:
        docs = Path(config.docs_dir).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    edit = edit.rstrip("/")
    if not edit.endswith(f"/{docs}"):
        return None
    return f"{edit.removesuffix(docs)}{path}"


def content(html_text: str, page: Page, view: View) -> str:
    """A view's page: its title, description and edit URL, out of search, and its link back."""
    page.meta["search"] = {"exclude": True}  # the page that embeds the example is the one to find
    page.edit_url = view.edit_url
    page.title = view.title
    page.meta["description"] = view.description
    if view.back is None:
        return html_text
    return f'<p><a href="{html.escape(view.back)}">{view.back_label}</a></p>\n' + html_text


def slim(output: str, page: Page) -> str:
    """A view without JupyterLab's inline stylesheets (574 KB a page), with the small one of ours."""
    root = "../" * page.url.count("/")
    start = output.find('class="md-content"')  # the notebook's own styles are all inside the content
    output = output[:start] + _STYLE.sub("", output[start:])
    return output.replace("</head>", f'<link rel="stylesheet" href="{root}{CSS}">\n</head>', 1)
