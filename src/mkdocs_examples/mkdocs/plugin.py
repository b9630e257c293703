"""The MkDocs plugin `examples`: wires the engine into the build; it executes nothing itself.

Order of work in one build:

1. ``on_pre_build`` reads every page of every language, runs each embedded example (build.py)
   once (memory, then cache, then the worker pool) and, outside `mkdocs serve`,
   stops the build on any failure *before* MkDocs cleans the site directory.
2. ``on_files`` adds the plugin's stylesheet and, once mkdocs-static-i18n has sorted a
   language's files, that language's notebook views (pages.py, publish/notebook_views.py).
3. ``on_page_markdown`` replaces each block by its rendered code and output (page_markdown.py).
4. ``on_post_build`` runs after mkdocs-static-i18n has built the other languages, whose
   ``on_pre_build`` keeps the results of the first (i18n.py: the outer and nested builds).
   Each page as written, and the whole site at the end, are weighed against their budgets
   (publish/weight.py): a warning, which fails a strict build.

The core takes plain values and raises ``SiteError``; the hooks turn that into MkDocs' ``PluginError``
with the same message (:func:`_stops`). The read-only properties and methods under "API" are what a
site's own hooks may use; everything else is internal.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from mkdocs_examples import page_markdown
from mkdocs_examples.build import Build, KnockOn, run
from mkdocs_examples.execute.engine import Engine, EngineError, Outcome, grouped
from mkdocs_examples.execute.pool import PoolError
from mkdocs_examples.mkdocs import i18n, pages
from mkdocs_examples.mkdocs.config import ExamplesConfig, check_extensions, settings_of
from mkdocs_examples.publish import downloads, notebook_views, notebooks, picker, weight
from mkdocs_examples.publish.staging import Staging
from mkdocs_examples.recordings.published import PublishedRecordings
from mkdocs_examples.recordings.store import RecordingError
from mkdocs_examples.render.page import branch, github, link_titles
from mkdocs_examples.results import SiteError
from mkdocs_examples.source import comments, files
from mkdocs_examples.source.cells import Example, ExampleError
from mkdocs_examples.source.pages import refuse_bidi

log = get_plugin_logger(__name__)

CSS = "assets/mkdocs_examples.css"
PICKER = ("assets/mkdocs_examples_picker.css", "assets/mkdocs_examples_picker.js")  # the torch picker's
PACKAGE = Path(__file__).parent.parent  # the assets are the package's


@contextmanager
def _stops() -> Iterator[None]:
    """The core's ``SiteError`` as MkDocs' ``PluginError``, with the same message: MkDocs stops the build on it."""
    try:
        yield
    except SiteError as error:
        raise PluginError(str(error)) from None


class ExamplesPlugin(BasePlugin[ExamplesConfig]):
    def __init__(self) -> None:
        self._engine: Engine | None = None
        self._root = Path()
        self._serving = False
        self._held: KnockOn | None = None  # warnings held back while an example fails (`serve`)
        self._build = Build()  # what this build found: pages, examples, outcomes (build.py)
        self._recordings: PublishedRecordings | None = None  # the option `recordings`, read in each build
        self._site: page_markdown.Site | None = None  # what rendering a page needs of the configuration
        self._kept = page_markdown.Kept()  # the pages' Markdown as rendered, for the rebuilds of `serve`
        self._downloads: dict[Any, Any] = {}  # the downloads as written, for the rebuilds of `serve`
        self._picked: dict[Any, Any] = {}  # the torch picker's data of each example, likewise
        self._titled: dict[str, tuple[Any, str]] = {}  # each page's HTML with its code blocks' titles linked, likewise
        self._roomed: dict[str, tuple[str, str]] = {}  # each page as written with the picker's room, likewise
        self._read: pages.Read = {}  # the title and blocks of each page, likewise
        self._assets: list[str] = []  # the stylesheets and scripts the engine adds to the site
        self._with_views = False  # notebook views in this build (publish/notebook_views.py)
        self._jupyter_cache = pages.JupyterCache()  # kept across the language builds
        self._views: dict[str, notebook_views.View] = {}  # this language build's views, by src_uri
        self._view_urls: dict[str, str] = {}  # example path: the URL of its view in this language build
        self._branch = "main"
        self._aside = False  # `mkdocs build` (not serve, --dirty, gh-deploy): its site is written aside
        self._staging: Staging | None = None  # this build's site, written beside site_dir until it ends well
        self._finished = False  # this build got to its last event: its site is swapped in when MkDocs returns

    # --- API: what a site's own hooks may read -------------------------------------

    @property
    def examples_dir(self) -> Path:
        """The folder of the example scripts (the option ``examples_dir``, relative to mkdocs.yml), absolute."""
        return (self._root / self.config.examples_dir).resolve()

    @property
    def running(self) -> bool:
        """Whether examples run in this build (false with ``enabled: false``: pages show the code only)."""
        return self._engine is not None

    def examples_of(self, src_uri: str) -> tuple[str, ...]:
        """The examples a page embeds, by the page's ``src_uri``: paths relative to :attr:`examples_dir`.

        Each once, in the order the page first embeds them, whether or not they built; known once the
        build's ``on_pre_build`` has run, for the pages MkDocs builds (``exclude_docs`` left out).
        """
        return self._build.examples_of(src_uri)

    def example_of_view(self, src_uri: str) -> str | None:
        """The example a notebook view shows, by the view's ``src_uri``: a path relative to :attr:`examples_dir`;
        None for any other page. Known from this language build's ``on_files`` on."""
        view = self._views.get(src_uri)
        return view.example if view else None

    def build_no_notebook_views(self) -> None:
        """No notebook view in this build, whatever the option ``notebook_views`` says: for a preview that
        builds less than the site (the site's fast `mkdocs serve`). Called from an ``on_config`` that runs
        before this plugin's; the next build reads the option again."""
        self.config.notebook_views = False

    @property
    def executed(self) -> tuple[str, ...]:
        """The examples this plugin has run (not taken from memory or the cache) since MkDocs started it, in order."""
        return tuple(self._engine.executed) if self._engine else ()

    # --- MkDocs events ---------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # Defining on_startup also keeps this instance, its memory and its worker, across `serve` rebuilds
        self._serving = command == "serve"
        self._recordings, self._kept = None, page_markdown.Kept()  # nothing of an earlier session of this process
        self._downloads, self._picked, self._titled, self._roomed, self._read = {}, {}, {}, {}, {}
        # serve builds into a folder of its own, gh-deploy publishes site_dir before MkDocs returns
        self._aside = command == "build" and not dirty

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        check_extensions(config.markdown_extensions)
        self._root = Path(config.config_file_path).parent
        root, names = self._root / self.config.recordings, list(self.config.publish)
        if self._recordings is None or (self._recordings.root, self._recordings.names) != (root, names):
            # kept by each language's build and by the rebuilds of `serve`: it reads the files again once they change
            self._recordings = PublishedRecordings(root, names)
        self._assets = [CSS, *(PICKER if self.config.picker and self._recordings.folders() else ())]
        for asset in self._assets:
            scripts = config.extra_javascript if asset.endswith(".js") else config.extra_css
            if asset not in [str(s) for s in scripts]:
                scripts.append(asset)
        check_extensions(config.markdown_extensions, recordings=bool(self._recordings.folders()))
        self._branch = branch(config.edit_uri)
        jupyter = pages.jupyter(config)
        self._with_views = bool(self.config.enabled and self.config.notebook_views and jupyter is not None)
        if jupyter is not None:  # with views or without: its cache, beside mkdocs.yml
            pages.configure(config, self._root)
        site = Path(config.site_dir)
        if self.config.atomic_site and self._aside and self._staging is None and not i18n.is_nested_build(config):
            self._staging, self._finished = Staging(site), False  # written beside site_dir, then swapped in
            config.site_dir = str(self._staging.start())
        if self.config.enabled and self._engine is None:
            # The worker starts only when an example must run: a build served from the cache imports no torch
            watch = [Path(config.docs_dir), site, Path(config.site_dir)]
            settings = settings_of(self.config)
            self._engine = Engine.from_config(settings, self._root, watch=watch, execute=self.config.execute)
            self._engine.start_early()  # with an empty cache: while the pages are read
        self._site = page_markdown.Site(
            running=self._engine is not None, serving=self._serving, examples_dir=self.examples_dir,
            folder=settings_of(self.config).folder, limit=self.config.max_output, repository=github(config.repo_url),
            branch=self._branch, warn=log.warning,
        )  # fmt: skip
        return config

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        if i18n.is_nested_build(config):  # another language of the same build: results are known
            return
        with _stops():  # before anything of them is read: no link, and no page that reads other than it is written
            for what, folder in [("pages", Path(config.docs_dir)), ("examples", self._root / self.config.examples_dir),
                                 ("recordings", self._root / self.config.recordings)]:  # fmt: skip
                files.refuse_links(folder, what)
            refuse_bidi(Path(config.docs_dir))
        found = pages.read_pages(config, serving=self._serving, kept=self._read if self._serving else None)
        assert self._recordings
        self._recordings.clear()  # nothing of an earlier build
        self._build = Build(Path(config.docs_dir).name, self._recordings, found)
        if not self._engine:
            return
        self._build.load(self._engine)
        with _stops():  # a translation that is refused is never shown: the build stops before any example runs
            comments.refuse(self._build.loaded().values(), i18n.site_languages(config))
        for example in self._build.loaded().values():
            for problem in notebooks.foreign_notes(example, i18n.site_languages(config)):
                log.warning(problem)  # a note no reader would get: fails a strict build
            for lang in i18n.site_languages(config):
                for problem in comments.problems(example, lang) if lang != i18n.default_language(config) else []:
                    log.warning(problem)  # comments a reader would get in English: fails a strict build
        self._keep_notebooks()
        self._build.outcomes = self._run(list(self._build.loaded().values()))
        try:
            self._build.read_recordings(log.info, log.warning)  # an unverified recording fails a strict build
        except RecordingError as error:
            raise PluginError(str(error)) from None
        for problem in self._build.declaration_problems():
            log.warning(problem)  # a check that fails where its holds= does not say so: fails a strict build
        problems = grouped(self._build.problems())  # one message per example, naming the blocks that embed it
        if problems and not self._serving:
            failed = f"{len(problems)} example failed" if len(problems) == 1 else f"{len(problems)} examples failed"
            raise PluginError(f"{failed}:\n\n" + "\n\n".join(problems))
        for problem in problems:
            # Not a warning: under `strict: true` a warning aborts the rebuild, and `serve` would keep
            # the reader waiting instead of showing the error box on the page
            log.info(f"FAILED (shown on its page; `mkdocs build` stops here): {problem}")
        if problems and self._held is None:  # what follows from the failure waits until it is fixed
            self._held = KnockOn()
            self._held.attach()

    def on_serve(self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable) -> LiveReloadServer:
        server.watch(str(self.examples_dir))  # an edited example rebuilds the pages
        if self._engine is not None and self.config.execute:
            # the worker imports its modules (torch) while the contributor reads the first build: the first
            # edit of an example waits for its run alone
            self._engine.pool.start()
        for folder in self._recordings.folders() if self._recordings else []:
            server.watch(str(folder))
        return server

    def _add_assets(self, files: Files, *, config: MkDocsConfig) -> Files:
        for asset in self._assets:
            files.append(File.generated(config, asset, abs_src_path=str(PACKAGE / asset)))
        return files

    @event_priority(-150)  # after static-i18n (-100) has sorted this language's files
    def _add_views(self, files: Files, *, config: MkDocsConfig) -> Files:
        self._views = {}
        if self._with_views and self._engine:
            embeds = {uri: (title, list(self.examples_of(uri))) for uri, (title, _) in self._build.pages.items()}
            self._views = pages.add_views(
                files, config, root=self._root, built=self._build.built(), pages=embeds,
                examples_folder=settings_of(self.config).folder, seed=self.config.seed, threads=self.config.threads,
            )
        self._view_urls = {view.example: view.url for view in self._views.values()}
        return files

    on_files = CombinedEvent(_add_assets, _add_views)

    @event_priority(10_000)  # first: every other plugin and hook adds to the sandboxed environment, and renders in it
    def on_env(self, env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
        with _stops():
            return pages.sandboxed(env, self._root) if self.config.sandbox_templates else env

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        assert self._site
        lang = i18n.page_language(page, config)
        with _stops():
            return page_markdown.render(
                markdown, page=pages.page_of(page), lang=lang, prefix=i18n.prefix(config, lang), build=self._build,
                site=self._site, views=self._view_urls, kept=self._kept if self._serving else None,
            )  # fmt: skip

    def _link_titles(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Each code block's title, the example's file, links to that file in the repository."""
        repository = github(config.repo_url)
        if not repository or not self._build.examples or page.file.src_uri in self._views:  # a view has no titles
            return html
        known = {e.display for e in self._build.loaded().values()}
        inputs = (html, repository, known, self._branch)
        kept = self._titled.get(page.file.src_uri) if self._serving else None
        if kept is not None and kept[0] == inputs:  # the page's HTML as the last rebuild of `serve` linked it
            return kept[1]
        linked = link_titles(html, repository, known, self._branch)
        if self._serving:
            self._titled[page.file.src_uri] = (inputs, linked)
        return linked

    def _view_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        view = self._views.get(page.file.src_uri)
        return pages.view_content(html, page, view) if view else html

    on_page_content = CombinedEvent(_link_titles, _view_content)

    def on_page_context(
        self, context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
    ) -> TemplateContext:
        if view := self._views.get(page.file.src_uri):  # after static-i18n's (50), which skips views
            pages.alternates(config, view)
        return context

    def _finish_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        if page.file.src_uri in self._views:
            return notebook_views.served(output, page.url)
        if PICKER[1] not in self._assets:
            return output
        kept = self._roomed.get(page.file.src_uri) if self._serving else None
        if kept is not None and kept[0] == output:  # the page as the last rebuild of `serve` wrote it
            return kept[1]
        roomed = picker.with_room(output)
        if self._serving:
            self._roomed[page.file.src_uri] = (output, roomed)
        return roomed

    @event_priority(-100)  # after the other plugins' and hooks' changes to the page
    def _weigh_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        if self._serving:  # the budgets are the published site's
            return output
        uri, written = page.file.src_uri, page.file.dest_uri
        view = self._views.get(uri)
        name = written if view else f"{self._build.shown(uri)} ({written})"
        paths = [view.example] if view else self.examples_of(uri)
        shown = [(o.example, o.result) for path in paths if (o := self._build.outcomes.get(path))]
        if problem := weight.page_problem(name, len(output.encode()), self.config.max_page_size, shown):
            log.warning(problem)  # fails a strict build
        return output

    on_post_page = CombinedEvent(_finish_page, _weigh_page)

    @event_priority(50)  # before mkdocs-jupyter's (0), which would delete the other languages' renderings
    def _hold_jupyter_cache(self, *, config: MkDocsConfig) -> None:
        if self._with_views:
            self._jupyter_cache.hold(config)

    @event_priority(-50)  # after it, before static-i18n's (-100) builds the other languages
    def _release_jupyter_cache(self, *, config: MkDocsConfig) -> None:
        if self._with_views:
            self._jupyter_cache.release(config)

    @event_priority(-200)  # after static-i18n's on_post_build, which builds the other languages
    def _write_downloads(self, *, config: MkDocsConfig) -> None:
        if i18n.is_nested_build(config):
            return
        if self._with_views:
            self._jupyter_cache.evict(config)
        if self._engine:  # each language's downloads, with its notes
            built = self._build.built()
            downloads.write(Path(config.site_dir), {lang: i18n.prefix(config, lang) for lang in i18n.languages(config)},
                            built, seed=self.config.seed, threads=self.config.threads,
                            kept=self._downloads if self._serving else None)  # fmt: skip
            if self._recordings and PICKER[1] in self._assets:  # what the torch picker fetches
                results = [(example, result) for example, result, _ in built]
                picker.write(Path(config.site_dir), self._build.site_env(), self._recordings.found, results,
                             self.config.max_output, self._recordings.unverified(),
                             kept=self._picked if self._serving else None)  # fmt: skip
        self._end_build()

    @event_priority(-9_000)  # once every other plugin and hook has written its files, before the site is swapped in
    def _weigh_site(self, *, config: MkDocsConfig) -> None:
        if self._serving or i18n.is_nested_build(config):
            return
        shown = [(o.example, o.result) for o in self._build.outcomes.values()]
        if problem := weight.site_problem(Path(config.site_dir), self.config.max_site_size, shown):
            log.warning(problem)  # fails a strict build

    @event_priority(-10_000)  # the very last: every plugin and hook has written its files
    def _site_written(self, *, config: MkDocsConfig) -> None:
        if self._staging is None or i18n.is_nested_build(config):
            return
        self._finished = True
        if not config.strict:  # nothing can fail it now; a strict build is swapped in when MkDocs returns
            self._swap_site(config)

    def _swap_site(self, config: MkDocsConfig | None = None) -> None:
        staging, self._staging = self._staging, None
        if staging is None:
            return
        if config is not None:
            config.site_dir = str(staging.site)
        staging.commit() if self._finished else staging.discard()

    on_post_build = CombinedEvent(
        _hold_jupyter_cache, _release_jupyter_cache, _write_downloads, _weigh_site, _site_written
    )

    def on_build_error(self, *, error: Exception) -> None:
        self._end_build()
        self._finished = False  # a strict build with warnings, too, fails after its last event

    def on_shutdown(self) -> None:
        self._swap_site()  # a build cut short (Ctrl-C) or failed leaves site_dir as it was
        if self._engine:
            self._engine.close()
            self._engine = None

    # --- steps -------------------------------------------------------------------

    def _run(self, examples: list[Example]) -> dict[str, Outcome]:
        assert self._engine
        try:
            outcomes = run(self._engine, examples, log.info)  # not warnings: none of them may fail a strict build
        except (EngineError, PoolError) as error:
            raise PluginError(str(error)) from None
        return outcomes

    def _keep_notebooks(self) -> None:
        """The committed notebooks (notebooks/, for Colab) follow the examples: written again here, or, where the
        build must not write into the checkout (CI), a warning per stale one, which fails a strict build."""
        settings, write = settings_of(self.config), not os.environ.get("CI")
        try:
            said = notebooks.keep_committed(self._root, self.examples_dir, settings.folder, seed=settings.seed,
                                            threads=settings.threads, write=write)  # fmt: skip
        except (OSError, ExampleError, SiteError):
            return  # an example that cannot be read, or translated: the build says so, `make notebooks` refuses it
        for line in said:
            (log.info if write else log.warning)(line)

    def _end_build(self) -> None:
        """The end of a build, or of a failed one: nothing of it reaches the next (`mkdocs serve` rebuilds)."""
        self._views, self._view_urls = {}, {}
        if self._held is not None:
            if held := self._held.detach():
                log.info(f"{held} warning(s) about links and anchors held back while an example fails: they "
                         "follow from its missing cells; fix the example first")  # fmt: skip
            self._held = None
        if self._engine:
            self._engine.forget_failures()  # a failed example runs again on the next `serve` rebuild
