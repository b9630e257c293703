"""The fast preview of `mkdocs serve`: one language, no search index, no notebook views.

MkDocs hook (registered under `hooks:` in mkdocs.yml). A rebuild of the whole site takes 5-7 s
on a 2-core machine: both languages, the search index of each (jieba for Chinese) and the
notebook view of every example in both languages (mkdocs-jupyter). A contributor who edits a
page or an example waits for all of it before the browser shows the change. Under
`mkdocs serve` only, this hook builds the pages of one language and nothing else:

- `PREVIEW` unset or `en`: the English pages, at `/` as published;
- `PREVIEW=zh`: the Chinese pages, at `/` (static-i18n builds its default language at the
  root: the Chinese pages become the default for the preview);
- `PREVIEW=all`: the whole site as it is published (both languages, search, notebook views).

The language switcher is gone (static-i18n lists only the languages it builds), and the
search box finds nothing. `mkdocs build` never goes through here: it builds everything.
The file watcher of `mkdocs serve` looks for changes every 0.5 s; in the fast preview it
looks every 0.1 s.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from jinja2 import Environment
from jinja2.bccache import Bucket, BytecodeCache
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from mkdocs_examples import i18n

log = get_plugin_logger("serve")

VARIABLE = "PREVIEW"
ALL = "all"
POLLING = 0.1  # seconds between two looks at the watched files (mkdocs: 0.5)
KEY = "preview"  # config.extra[KEY]: the language of the fast preview; absent when building everything

_state: dict[str, bool] = {"serving": False}


def on_startup(*, command: str, dirty: bool) -> None:
    _forget()
    _state["serving"] = command == "serve"


def on_shutdown() -> None:
    _forget()  # the next build of this process (tests) starts from `mkdocs build`, with nothing of this one


def _forget() -> None:
    """Drop what this hook keeps from one build to the next, and its log handler."""
    _state["serving"] = False
    _renders.clear()
    _build.update(pending={}, files="", warnings=0)
    _compiled.store.clear()
    logging.getLogger("mkdocs").removeHandler(_warnings)


def preview(config: MkDocsConfig) -> str | None:
    """The one language the fast preview builds, or None when the whole site is built."""
    return config.extra.get(KEY)


@event_priority(100)  # before static-i18n reads its languages and before the search hook
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.extra.pop(KEY, None)
    wanted = os.environ.get(VARIABLE, "").strip()
    if not _state["serving"] or wanted == ALL:
        return config
    plugin = i18n.static_i18n(config)
    if plugin is None:
        return config
    languages = [lang.locale for lang in plugin.config.languages]  # all configured, built or not
    wanted = wanted or i18n.default_language(config)
    if wanted not in languages:
        raise PluginError(f"{VARIABLE}={wanted}: expected one of {', '.join(languages)} or {ALL}")
    if not i18n.is_nested_build(config):  # say it once per build
        log.info(f"fast preview: only the '{wanted}' pages, no search, no notebook views ({VARIABLE}=all: everything)")
    for lang in plugin.config.languages:  # what static-i18n's build_only_locale does
        lang.default = lang.build = lang.locale == wanted
    config.extra[KEY] = wanted
    search = config.plugins.get("material/search") or config.plugins.get("search")
    if search is not None:
        search.config.enabled = False
        # static-i18n merges the search entries of every language into the index of the search
        # plugin after its build, enabled or not (mkdocs_static_i18n.reconfigure.reconfigure_search_index)
        search.search_index = SimpleNamespace(entries=[])
    examples = config.plugins.get("examples")
    if examples is not None:
        examples.config.notebook_views = False  # read by the plugin's on_config, which runs after this one
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        # no notebook to render (the examples plugin adds none): no page read by jupytext to find out,
        # and no eviction of the notebooks it rendered for the last full build from its cache
        jupyter.config["ignore"] = ["*"]
        jupyter.config["cache"] = False
    return config


# --- pages rendered again only when their Markdown changed ------------------------------------------
#
# Rendering the Markdown of every page (code highlighting above all) is most of a rebuild. The
# HTML of a page depends only on its Markdown (after the plugins: the example outputs are in it),
# its URL, the site's files and mkdocs.yml; a page whose inputs are those of the last build gets
# that build's HTML. A build with warnings keeps nothing: the next one renders (and warns) again.


def _signature(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


_renders: dict[str, tuple[str, dict[str, Any]]] = {}  # page src_uri: the signature of its inputs, what render() set
_build: dict[str, Any] = {"pending": {}, "files": "", "warnings": 0}  # this build's renders, before it ends well
_warnings = _Warnings()


@event_priority(-1000)  # after static-i18n and the other hooks have settled the files
def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    if preview(config) is None:
        return files
    if _warnings not in logging.getLogger("mkdocs").handlers:
        logging.getLogger("mkdocs").addHandler(_warnings)
    config_text = Path(config.config_file_path).read_text(encoding="utf-8")
    listed = "\n".join(sorted(f"{f.src_uri} {f.url}" for f in files))
    _build.update(pending={}, files=_signature(config_text, listed), warnings=_warnings.count)
    return files


@event_priority(-1000)  # after every other change to the Markdown (the examples plugin's outputs)
def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if preview(config) is None:
        return markdown
    uri = page.file.src_uri
    signature = _signature(_build["files"], page.file.url, markdown)
    known = _renders.get(uri)
    if known is not None and known[0] == signature:
        page.render = lambda config, files: _restore(page, files, known[1])  # type: ignore[method-assign]
        return markdown
    render = page.render

    def render_and_keep(config: MkDocsConfig, files: Files) -> None:
        render(config, files)
        _build["pending"][uri] = (signature, _rendered(page))

    page.render = render_and_keep  # type: ignore[method-assign]  # this page's render, not the class's
    return markdown


def _rendered(page: Page) -> dict[str, Any]:
    links = page.links_to_anchors
    return {
        "content": page.content,
        "toc": page.toc,
        "_title_from_render": page._title_from_render,
        "present_anchor_ids": page.present_anchor_ids,
        "links_to_anchors": None if links is None else {f.src_uri: v for f, v in links.items()},
    }


def _restore(page: Page, files: Files, rendered: dict[str, Any]) -> None:
    for name, value in rendered.items():
        if name == "links_to_anchors" and value is not None:  # keyed by this build's files
            value = {found: v for uri, v in value.items() if (found := files.get_file_from_path(uri))}
        setattr(page, name, value)


@event_priority(-1000)
def on_post_build(*, config: MkDocsConfig) -> None:
    if preview(config) is not None and _warnings.count == _build["warnings"]:
        _renders.update(_build["pending"])
    _build["pending"] = {}


# --- templates compiled once -----------------------------------------------------------------------


class _Compiled(BytecodeCache):
    """Jinja's compiled templates, kept in memory from one build to the next (checked against their source)."""

    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if (code := self.store.get(bucket.key)) is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.store[bucket.key] = bucket.bytecode_to_string()


_compiled = _Compiled()


@event_priority(-1000)  # after static-i18n has added its Jinja extension
def on_env(env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
    if preview(config) is not None:
        env.bytecode_cache = _compiled
    return env


def on_serve(server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable[..., Any]) -> LiveReloadServer:
    if preview(config) is None:
        return server
    # watchdog's polling observer: the folders watched so far and those watched later
    server.observer._timeout = POLLING
    for emitter in server.observer.emitters:
        emitter._timeout = POLLING
    return server
