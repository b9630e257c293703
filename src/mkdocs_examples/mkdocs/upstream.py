"""Where the engine and its site plugins use what other packages keep private, one small function each.

Where a package has no public way to do what we need, the private name it uses is read here and
nowhere else (tests/test_upstream.py: no other module touches another package's private name).
Each function names the version of the package it was checked against; tests/test_upstream.py
runs each against the installed package and fails, saying what to check again, when the installed
version is another.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import File, Files
    from mkdocs.structure.pages import Page
    from mkdocs.theme import Theme
    from watchdog.observers.api import BaseObserver

# -- mkdocs-material --------------------------------------------------------------------------------

MATERIAL = "9.8.1"  # the version of mkdocs-material the functions below were checked against
WORKERS = "templates/assets/javascripts/workers"  # Material's search worker, in its package


def material_search_worker() -> Path:
    """Material's search worker (its minified file, ``search.<hash>.min.js``), checked against mkdocs-material
    9.8.1: the worker is no API, and the file name changes with every release."""
    import material  # type: ignore[import-untyped]

    found = sorted((Path(material.__file__).parent / WORKERS).glob("search.*.min.js"))
    if len(found) != 1:
        raise RuntimeError(f"expected one search worker in Material, found {found}")
    return found[0]


def material_search_worker_with(query: str, step: str, fields: list[str], share: str) -> str:
    """The text of Material's search worker, changed where it offers no option (checked against mkdocs-material
    9.8.1, whose minified worker the patterns below find; each must be found exactly once):

    - its rewrite of each run of Han characters of a query (segmented by its own function, joined with a
      textual ``* ``) replaced by a call of the function ``query`` on the whole query and the index;
    - the function ``step`` added to the pipeline that indexes the pages;
    - ``fields`` beside title, text and tags where it parses a query (a field it does not know becomes a word)
      and where it lists a result's missing words;
    - in a result's score (lunr's, times 1 + g², where g is 1 for a page's own entry, not a section's, plus the
      share of the query's words it holds), that share given by the function ``share`` of the words found and
      the entry as indexed.
    """
    source = material_search_worker().read_text(encoding="utf-8")
    # `e=e.replace(new RegExp("\\p{sc=Han}+","gu"),s=>[...fe(s,this.index.invertedIndex)].join("* "))`
    rewrite = re.compile(
        r'(\w+)=\1\.replace\(new RegExp\("\\\\p\{sc=Han\}\+","gu"\),(\w+)=>'
        r'\[\.\.\.[A-Za-z_$][\w$]*\(\2,this\.index\.invertedIndex\)\]\.join\("\* "\)\)'
    )
    if len(rewrite.findall(source)) != 1:
        raise RuntimeError("Material's search worker changed: its rewrite of Chinese queries is not found")
    source = rewrite.sub(rf"\1={query}(\1,this.index)", source)
    known = '["title","text","tags"]'
    if source.count(known) != 2:
        raise RuntimeError("Material's search worker changed: its list of the index's fields is not found")
    source = source.replace(known, known[:-1] + "".join(f',"{field}"' for field in fields) + "]")
    ref = 'this.ref("location")'
    if source.count(ref) != 1:
        raise RuntimeError("Material's search worker changed: where it builds the index is not found")
    source = source.replace(ref, f"this.pipeline.add({step}),{ref}")
    # `let g=+!d.parent+Object.values(m).filter(x=>x).length/Object.keys(m).length;`
    score = re.compile(
        r"(let \w+=\+!(\w+)\.parent\+)Object\.values\((\w+)\)\.filter\(\w+=>\w+\)\.length/Object\.keys\(\3\)\.length;"
    )
    if len(score.findall(source)) != 1:
        raise RuntimeError("Material's search worker changed: its score of a result is not found")
    return score.sub(rf"\1{share}(\3,this.map.get(\2.location));", source)


# -- mkdocs-jupyter ---------------------------------------------------------------------------------

JUPYTER = "0.26.3"  # the version of mkdocs-jupyter the functions below were checked against


def jupyter_used_cache(plugin: Any) -> set[Path]:
    """The files of mkdocs-jupyter's cache that its ``plugin`` read or wrote in this build, which its
    ``on_post_build`` keeps (it deletes the others). Checked against mkdocs-jupyter 0.26.3, which keeps them in
    the private ``_used_cache_paths`` and offers no way to read them."""
    return {Path(path) for path in plugin._used_cache_paths}


# -- nbconvert --------------------------------------------------------------------------------------

NBCONVERT = "7.17.2"  # the version of nbconvert the function below was checked against
_COMPILED: dict[tuple[bool, tuple[str, ...]], _CompiledTemplates] = {}  # by kind of environment: its templates


def nbconvert_compile_templates_once() -> None:
    """Have every Jinja environment of nbconvert's exporters share one bytecode cache in memory per kind of
    environment (sync or async, its extensions), so that a template is compiled once per process, not once per
    exporter; Jinja keys each compiled template by its name and checks it against its source. Checked against
    nbconvert 7.17.2, which makes a new environment for each exporter in the private ``_create_environment``;
    mkdocs-jupyter makes an exporter for each notebook, so each view compiled the same templates again (a third
    of its time). Installed once per process."""
    from nbconvert.exporters.templateexporter import TemplateExporter

    create = TemplateExporter._create_environment
    if getattr(create, "compiles_once", False):
        return

    def with_cache(self: Any) -> Environment:
        environment = create(self)
        kind = (environment.is_async, tuple(sorted(environment.extensions)))
        environment.bytecode_cache = _COMPILED.setdefault(kind, _CompiledTemplates())
        return environment

    with_cache.compiles_once = True  # type: ignore[attr-defined]
    TemplateExporter._create_environment = with_cache  # type: ignore[method-assign]


class _CompiledTemplates(BytecodeCache):
    """Jinja's compiled templates, kept in memory."""

    def __init__(self) -> None:
        self.kept: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.kept:
            bucket.bytecode_from_string(self.kept[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.kept[bucket.key] = bucket.bytecode_to_string()


# -- mkdocs -----------------------------------------------------------------------------------------

MKDOCS = "1.6.1"  # the version of MkDocs the functions below were checked against


Inject = Callable[[bytes, int], bytes]  # a page as served, the build's number: the page with the script


def mkdocs_wrap_live_reload(server: Any, wrap: Callable[[Inject], Inject]) -> None:
    """Have MkDocs' live-reload ``server`` add its script to each page it serves through ``wrap`` of the method
    that does (``wrap`` gets it and returns the one to use). Checked against MkDocs 1.6.1, whose
    ``LiveReloadServer._inject_js_into_html(content, epoch)`` puts an inline script before ``</body>``; no
    option or event reaches what `mkdocs serve` serves."""
    server._inject_js_into_html = wrap(server._inject_js_into_html)


def mkdocs_replace_render(page: Page, render: Callable[[MkDocsConfig, Files], None]) -> None:
    """``render`` as ``page``'s render for this build, in place of turning its Markdown into HTML.

    Checked against MkDocs 1.6.1, which calls ``page.render(config, files)`` between the events
    on_page_markdown and on_page_content, and has no event that skips or wraps it.
    """
    page.render = render  # type: ignore[method-assign, assignment]  # this page's, not the class's


def mkdocs_rendered_title(page: Page) -> str | None:
    """The title ``page``'s render found (its first heading), which ``page.title`` gives where neither the
    navigation nor the front matter names one. Checked against MkDocs 1.6.1: ``Page._title_from_render``."""
    return page._title_from_render


def mkdocs_set_rendered_title(page: Page, title: str | None) -> None:
    """Sets what :func:`mkdocs_rendered_title` reads, as a render of the page would (MkDocs 1.6.1)."""
    page._title_from_render = title


def mkdocs_set_observer(server: LiveReloadServer, observer: BaseObserver) -> None:
    """``observer`` as the file watcher of `mkdocs serve`'s ``server``, before it serves.

    Checked against MkDocs 1.6.1, which makes it a polling observer (``LiveReloadServer.observer``) and offers
    no other, and uses it only through what every watchdog observer has: ``schedule``, ``unschedule``,
    ``start``, ``stop`` and ``join``. The paths the server watched before are watched by the old one: unwatch
    them first, and watch them again after.
    """
    server.observer = observer  # type: ignore[assignment]


def mkdocs_wrap_theme_env(theme: Theme, wrap: Callable[[Environment], Environment]) -> None:
    """Have this build's ``theme`` make its template environment through ``wrap`` (``wrap`` gets the environment
    MkDocs made and returns the one to use). Checked against MkDocs 1.6.1, whose build calls
    ``config.theme.get_env()`` once and lists the theme's static files from it at once
    (``files.add_files_from_theme``: ``env.list_templates``), before any event sees the environment (on_env)."""
    made = theme.get_env
    theme.get_env = lambda: wrap(made())  # type: ignore[method-assign]  # this theme's, not the class's


@contextmanager
def mkdocs_recorded_lookups(files: Files) -> Iterator[dict[str, File | None]]:
    """Every path looked up in ``files`` inside the block, with what it found.

    Checked against MkDocs 1.6.1, which resolves a page's relative links while rendering it, each with
    ``files.get_file_from_path``, and says nowhere which files a render looked at.
    """
    looked: dict[str, File | None] = {}
    lookup = files.get_file_from_path

    def recorded(path: str) -> File | None:
        found = lookup(path)
        looked[path] = found
        return found

    files.get_file_from_path = recorded  # type: ignore[method-assign]  # these files', for the block only
    try:
        yield looked
    finally:
        del files.get_file_from_path


# -- mkdocs-static-i18n -----------------------------------------------------------------------------

STATIC_I18N = "1.3.1"  # the version of mkdocs-static-i18n the functions below were checked against


def static_i18n_empty_search_index(search: Any) -> None:
    """Gives a search plugin that builds no index an empty one, for mkdocs-static-i18n to fill.

    Checked against mkdocs-static-i18n 1.3.1, whose ``reconfigure_search_index`` merges the search entries of
    every language into ``search_index.entries`` of the search plugin after its build, whether the plugin is
    enabled or not; a disabled Material search plugin (9.8.1) makes no index.
    """
    from types import SimpleNamespace

    search.search_index = SimpleNamespace(entries=[])

