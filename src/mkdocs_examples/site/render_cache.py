"""Pages rendered again only when what they are made of changed (the MkDocs plugin `examples-render-cache`).

Turning the Markdown of every page into HTML, code highlighting above all, is the largest
part of a build that runs no example (about 2 s of 7 here, both languages). The HTML of a
page depends only on:

- its Markdown, after the plugins (the examples' outputs are in it),
- its URL, and the files its relative links name: each render records what it looked up
  (``Files.get_file_from_path``: a file's URL and inclusion, or none), and a later build
  takes the render only where every lookup gives the same answer,
- mkdocs.yml without its navigation (``nav`` and static-i18n's ``nav_translations``, which
  no page body shows) and the Markdown extensions it configures, plugins' extensions included,
- the versions of MkDocs, Python-Markdown, pymdown-extensions, Pygments and the theme (the
  option ``packages``).

So adding a page renders that page and the pages whose links now resolve differently, not
every page. A page whose inputs are those of an earlier build gets that build's HTML, table
of contents, title and anchors (``<sha256 of the inputs>.json`` in the option ``folder``,
``.cache/pages`` by default; in memory too, for `mkdocs serve`). A build that logged a warning
keeps nothing of its renders, so the next one renders (and warns) again; a build that ends well
removes the entries it did not use. Jinja's compiled templates are kept in the option
``templates`` (``.cache/jinja``) likewise (Jinja checks each against its template's source).

Under `mkdocs serve`, laying a page out in the theme's templates (the whole navigation on every
page, in the engine's template sandbox) costs more than its render: a rebuild lays out again
only the pages whose layout inputs changed, and takes the others' HTML from the last rebuild,
in memory. A page's layout depends on its HTML, table of contents, metadata, title and URLs,
and on what every page shares: mkdocs.yml with its navigation, the configuration the plugins
settled (stylesheets, scripts, ``extra``), every file's URL and every page's title (the
navigation shows them), the language built and the theme's own templates (custom_dir). A page
taken so goes through the plugins' ``on_page_context`` and ``on_post_page`` as laid out anew,
through a template that writes the kept HTML (:data:`LAYOUT`, the page's ``template`` for
that rebuild).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import logging
import sys
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemBytecodeCache
from markupsafe import Markup
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, get_toc
from mkdocs.utils.templates import TemplateContext

from mkdocs_examples import atomic, yaml_files
from mkdocs_examples.environment import package_version
from mkdocs_examples.mkdocs import i18n, upstream

PACKAGES = ["mkdocs", "markdown", "pymdown-extensions", "pygments", "mkdocs-material"]  # the option's default
FORMAT = 2  # of the files below the option ``folder``
LAYOUT = "render_cache/kept.html"  # the template of a page laid out as in the last rebuild of `mkdocs serve`
KEPT = "render_cache_kept"  # that template's one variable: the page's HTML as laid out then


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


class _Build:
    """One build, every language of it: the renders it made and used, and whether it warned."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.files: dict[str, str] = {}  # language being built: the signature of its configuration
        self.made: dict[str, dict[str, Any]] = {}  # signature: what render() set
        self.used: dict[str, dict[str, Any]] = {}  # the same, of the renders taken from memory or disk
        self.layouts: dict[str, str] = {}  # src_uri of a page: the signature of its layout's inputs
        self.laid: dict[str, str] = {}  # signature: a page's HTML as its template laid it out in this build
        self.kept: dict[str, str] = {}  # the same, of the layouts taken from the last rebuild
        self.warnings = _Warnings()
        logging.getLogger("mkdocs").addHandler(self.warnings)

    def end(self) -> None:
        logging.getLogger("mkdocs").removeHandler(self.warnings)


class RenderCacheConfig(Config):
    # where the renders are kept, one JSON file each (relative to mkdocs.yml)
    folder = config_options.Dir(default=".cache/pages")
    # where Jinja's compiled templates are kept (relative to mkdocs.yml)
    templates = config_options.Dir(default=".cache/jinja")
    # the installed packages whose versions are inputs of every render: what turns Markdown into HTML
    packages = config_options.ListOfItems(config_options.Type(str), default=PACKAGES)


class RenderCachePlugin(BasePlugin[RenderCacheConfig]):
    """Kept from one build to the next of the process (MkDocs keeps a plugin that has ``on_startup`` for the
    rebuilds of `mkdocs serve`): the renders and layouts of the last build that ended well."""

    def __init__(self) -> None:
        super().__init__()
        self._memory: dict[str, dict[str, Any]] = {}  # signature: what render() set, for `mkdocs serve`'s rebuilds
        self._layouts: dict[str, str] = {}  # signature: a page's HTML as laid out, for `mkdocs serve`'s rebuilds
        self._serving = False  # whether this process is `mkdocs serve`
        self._builds = i18n.BuildState(lambda config: _Build(Path(self.config.folder)), _Build.end)

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self._memory.clear()
        self._layouts.clear()
        self._serving = command == "serve"

    def on_shutdown(self) -> None:
        self._memory.clear()
        self._layouts.clear()
        self._serving = False
        self._builds.drop()

    @event_priority(100)
    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        self._builds.start(config)

    def on_build_error(self, *, error: Exception) -> None:
        self._builds.drop()  # nothing of a failed build is kept

    @event_priority(-1000)  # after static-i18n and the other plugins have settled the files
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        if self._builds.now is not None:
            configuration = _configuration(config, self.config.packages)
            self._builds.now.files[i18n.build_language(config)] = _signature(configuration)
        return files

    @event_priority(-1000)  # after every other change to the Markdown (the examples plugin's outputs)
    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        build = self._builds.now
        if build is None or not page.file.src_uri.endswith(".md"):
            return markdown
        signature = _signature(build.files.get(i18n.build_language(config), ""), page.file.url, markdown)
        known = self._memory.get(signature) or _read(build.folder, signature)
        if known is not None and all(_target(files.get_file_from_path(p)) == t for p, t in known["files"].items()):
            build.used[signature] = known
            upstream.mkdocs_replace_render(page, lambda config, files: _restore(page, files, known))
            return markdown
        render = page.render

        def render_and_keep(config: MkDocsConfig, files: Files) -> None:
            with upstream.mkdocs_recorded_lookups(files) as looked:
                render(config, files)
            build.made[signature] = {**_rendered(page), "files": {p: _target(f) for p, f in looked.items()}}

        upstream.mkdocs_replace_render(page, render_and_keep)
        return markdown

    @event_priority(-1000)  # after every other step of the build, static-i18n's other languages included
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        build = self._builds.finish(config)
        if build is None or build.warnings.count:
            return
        self._memory.clear()
        self._memory.update(build.used)
        self._memory.update(build.made)
        self._layouts.clear()
        self._layouts.update(build.kept)
        self._layouts.update(build.laid)
        with contextlib.suppress(OSError):  # a cache that cannot be written costs time, nothing else
            build.folder.mkdir(parents=True, exist_ok=True)
            for signature, rendered in build.made.items():
                _write(build.folder / f"{signature}.json", rendered)
            keep = {f"{signature}.json" for signature in self._memory}
            for old in build.folder.glob("*.json"):
                if old.name not in keep:
                    old.unlink()

    @event_priority(-1000)  # after the engine's on_env, which puts the templates in its sandbox
    def on_env(self, env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
        with contextlib.suppress(OSError):
            Path(self.config.templates).mkdir(parents=True, exist_ok=True)
            env.bytecode_cache = FileSystemBytecodeCache(self.config.templates)
        build = self._builds.now
        if build is None or not self._serving:
            return env
        env.loader = ChoiceLoader([DictLoader({LAYOUT: "{{ " + KEPT + " }}"}), *([env.loader] if env.loader else [])])
        shared = _site(config, files)
        for file in files.documentation_pages():
            page = file.page
            if page is None or page.content is None or "template" in page.meta:  # a template of its own: laid out
                continue
            signature = _signature(shared, *_layout_inputs(page))
            build.layouts[file.src_uri] = signature
            if signature in self._layouts:
                build.kept[signature] = self._layouts[signature]
                page.meta["template"] = LAYOUT  # for this rebuild only: on_post_page takes it back
        return env

    @event_priority(-1000)  # after the other plugins have set theirs
    def on_page_context(
        self, context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Any
    ) -> TemplateContext:
        build = self._builds.now
        if build is not None and page.meta.get("template") == LAYOUT:
            context[KEPT] = Markup(build.kept[build.layouts[page.file.src_uri]])  # type: ignore[literal-required]
        return context

    @event_priority(1000)  # the page as its template laid it out, before the other plugins change it
    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        build = self._builds.now
        signature = build.layouts.get(page.file.src_uri) if build is not None else None
        if build is None or signature is None:
            return output
        if page.meta.get("template") == LAYOUT:
            del page.meta["template"]
        else:
            build.laid[signature] = output
        return output


# --- what a render depends on, and what it sets ---------------------------------------------


def _signature(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _configuration(config: MkDocsConfig, packages: list[str]) -> str:
    """mkdocs.yml less its navigation, the Markdown extensions as configured now, and the versions of ``packages``,
    which render them."""
    versions = {name: package_version(name) for name in packages}
    extensions = [_named(extension) for extension in config.markdown_extensions]
    settings = json.dumps(config.mdx_configs, sort_keys=True, default=_named)
    text = _without_navigation(Path(config.config_file_path).read_text(encoding="utf-8"))
    return json.dumps([FORMAT, versions, extensions, settings, text])


def _site(config: MkDocsConfig, files: Files) -> str:
    """What every page's layout shows of the site: its configuration, navigation, files and templates."""
    pages = [(f.src_uri, f.url, f.inclusion.name, f.page.title if f.page else None) for f in files]
    assets = [[str(s) for s in config.extra_css], [str(s) for s in config.extra_javascript]]
    text = Path(config.config_file_path).read_text(encoding="utf-8")
    custom = config.theme.custom_dir
    templates = sorted(
        (str(path), path.stat().st_mtime_ns, path.stat().st_size)
        for path in (Path(custom).rglob("*") if custom else ())
        if path.is_file()
    )
    language = i18n.build_language(config)
    return json.dumps([FORMAT, text, config.site_url, language, assets, config.extra, pages, templates], default=str)


def _layout_inputs(page: Page) -> list[str]:
    """What a page's layout shows of the page itself."""
    toc = json.dumps([_token(item) for item in page.toc])
    meta = json.dumps(page.meta, sort_keys=True, default=str)
    return [page.url, page.content or "", toc, meta, page.title or "", page.canonical_url or "", page.edit_url or ""]


_NAVIGATION = ("nav", "nav_translations")  # keys whose values only the navigation shows


@functools.lru_cache(maxsize=4)  # read again by each language of each rebuild
def _without_navigation(text: str) -> str:
    """mkdocs.yml's text without the ``nav`` and ``nav_translations`` keys, at any depth (YAML written anew)."""
    return yaml_files.without_keys(text, _NAVIGATION)


def _target(file: File | None) -> list[str] | None:
    """What a page's render takes from a file it links to: its URL and whether it is published."""
    return None if file is None else [file.url, file.inclusion.name]


def _named(value: Any) -> str:
    """A name for an extension, or a setting that is no JSON; a class of a file of this site with its source."""
    if isinstance(value, str):
        return value
    kind = value if inspect.isclass(value) or inspect.isfunction(value) else type(value)
    name = f"{kind.__module__}.{kind.__qualname__}"
    try:
        source = inspect.getsourcefile(kind)
    except TypeError:
        source = None
    if source and "site-packages" not in source:  # the site's own extension: its code is an input too, and
        # that of the project's own modules it takes names from (site/cjk.py's rule is mkdocs_examples/cjk.py)
        files = {source} | {f for v in vars(sys.modules[kind.__module__]).values() if (f := _own_file(v))}
        digest = hashlib.sha256()
        for file in sorted(files):
            digest.update(Path(file).read_bytes())
        name += "@" + digest.hexdigest()
    return name


def _own_file(value: Any) -> str | None:
    """The file of the project (not an installed package's) that defines ``value``, a function or class."""
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return None
    module = sys.modules.get(value.__module__)
    file = getattr(module, "__file__", None)
    return file if file and "site-packages" not in file and "/lib/python" not in file else None


def _rendered(page: Page) -> dict[str, Any]:
    links = page.links_to_anchors
    return {
        "content": page.content,
        "toc": [_token(item) for item in page.toc],
        "title": upstream.mkdocs_rendered_title(page),
        "anchors": sorted(page.present_anchor_ids or ()),
        "links": None if links is None else {f.src_uri: v for f, v in links.items()},
    }


def _token(item: AnchorLink) -> dict[str, Any]:
    return {"name": item.title, "id": item.id, "level": item.level, "children": [_token(c) for c in item.children]}


def _restore(page: Page, files: Files, rendered: dict[str, Any]) -> None:
    page.content = rendered["content"]
    page.toc = get_toc(rendered["toc"])
    upstream.mkdocs_set_rendered_title(page, rendered["title"])
    page.present_anchor_ids = set(rendered["anchors"])
    links = rendered["links"]
    if links is not None:  # keyed by this build's files
        links = {found: v for uri, v in links.items() if (found := files.get_file_from_path(uri))}
    page.links_to_anchors = links


def _read(folder: Path, signature: str) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / f"{signature}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    fields = {"content", "toc", "title", "anchors", "links", "files"}
    if not isinstance(data, dict) or set(data) != fields or not isinstance(data["files"], dict):
        return None
    return data if isinstance(data["content"], str) else None


def _write(file: Path, rendered: dict[str, Any]) -> None:
    atomic.write_text(file, json.dumps(rendered, ensure_ascii=False))
