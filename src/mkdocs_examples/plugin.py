"""The MkDocs plugin `examples`: wires the engine into the build; it executes nothing itself.

Order of work in one build:

1. ``on_pre_build`` reads every page of every language, runs each embedded example
   once (memory, then cache, then the worker pool) and, outside `mkdocs serve`,
   stops the build on any failure *before* MkDocs cleans the site directory.
2. ``on_files`` adds the plugin's stylesheet and, once mkdocs-static-i18n has sorted a
   language's files, that language's notebook views (publish/notebook_views.py).
3. ``on_page_markdown`` replaces each block by its rendered code and output.
4. ``on_post_build`` runs after mkdocs-static-i18n has built the other languages, whose
   ``on_pre_build`` keeps the results of the first (i18n.py: the outer and nested builds).

The read-only properties and methods under "API" are what a site's own hooks may use;
everything else is internal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from mkdocs_examples import i18n
from mkdocs_examples.config import ExamplesConfig
from mkdocs_examples.execute.engine import Engine, EngineError, Outcome, Progress, describe, grouped, summary
from mkdocs_examples.execute.pool import PoolError
from mkdocs_examples.publish import changes, error_index, notebook_views, notebooks, picker
from mkdocs_examples.publish.staging import Staging
from mkdocs_examples.recordings.published import PublishedRecordings
from mkdocs_examples.recordings.store import Recording, RecordingError
from mkdocs_examples.render.checks import differing, render_checks
from mkdocs_examples.render.page import (
    branch,
    github,
    link_titles,
    render_downloads,
    render_error,
    render_example,
    under_title,
)
from mkdocs_examples.render.provenance import Sources
from mkdocs_examples.results import Result
from mkdocs_examples.source.blocks import Block, find_blocks, replace_blocks
from mkdocs_examples.source.cells import Example, ExampleError, read_example
from mkdocs_examples.source.pages import read_pages, refuse_links

log = get_plugin_logger(__name__)

REQUIRED_EXTENSIONS = ("pymdownx.superfences", "pymdownx.highlight", "admonition")
CSS = "assets/mkdocs_examples.css"
PICKER = ("assets/mkdocs_examples_picker.css", "assets/mkdocs_examples_picker.js")  # the torch picker's


class ExamplesPlugin(BasePlugin[ExamplesConfig]):
    def __init__(self) -> None:
        self._engine: Engine | None = None
        self._root = Path()
        self._serving = False
        self._docs = "docs"  # the docs folder's name, as messages name a page: docs/en/x.md
        self._pages: dict[str, tuple[str, list[Block]]] = {}  # src_uri of a page: its title and blocks
        self._examples: dict[str, Example | ExampleError] = {}
        self._outcomes: dict[str, Outcome] = {}
        self._recordings: PublishedRecordings | None = None  # the option `recordings`, read in each build
        self._assets: list[str] = []  # the stylesheets and scripts the engine adds to the site
        self._with_views = False  # notebook views in this build (publish/notebook_views.py)
        self._jupyter_cache = notebook_views.JupyterCache()  # kept across the language builds
        self._views: dict[str, notebook_views.View] = {}  # this language build's views, by src_uri
        self._view_urls: dict[str, str] = {}  # example path: the URL of its view in this language build
        self._repo_url: str | None = None
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
        _, blocks = self._pages.get(src_uri, ("", []))
        return tuple(dict.fromkeys(block.path for block in blocks if block.path))

    @property
    def executed(self) -> tuple[str, ...]:
        """The examples this plugin has run (not taken from memory or the cache) since MkDocs started it, in order."""
        return tuple(self._engine.executed) if self._engine else ()

    # --- MkDocs events ---------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # Defining on_startup also keeps this instance, its memory and its worker, across `serve` rebuilds
        self._serving = command == "serve"
        # serve builds into a folder of its own, gh-deploy publishes site_dir before MkDocs returns
        self._aside = command == "build" and not dirty

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        missing = [name for name in REQUIRED_EXTENSIONS if name not in config.markdown_extensions]
        if missing:
            raise PluginError(
                f"the examples plugin needs these markdown_extensions in mkdocs.yml: {', '.join(missing)}"
            )
        self._root = Path(config.config_file_path).parent
        if self._recordings is None or not i18n.is_nested_build(config):  # a language build keeps what was read
            self._recordings = PublishedRecordings(self._root / self.config.recordings, list(self.config.publish))
        self._assets = [CSS, *(PICKER if self.config.picker and self._recordings.folders() else ())]
        for asset in self._assets:
            scripts = config.extra_javascript if asset.endswith(".js") else config.extra_css
            if asset not in [str(s) for s in scripts]:
                scripts.append(asset)
        self._docs = Path(config.docs_dir).name
        needed = [e for e in ("pymdownx.tabbed", "pymdownx.details") if e not in config.markdown_extensions]
        if self._recordings.folders() and needed:
            raise PluginError(
                "the examples plugin publishes recordings (option `recordings`) and needs the markdown extensions "
                "pymdownx.tabbed (alternate_style: true) and pymdownx.details in mkdocs.yml, to show outputs that "
                f"differ by device as tabs and by version as folded notes; missing: {', '.join(needed)}"
            )
        self._repo_url = config.repo_url
        self._branch = branch(config.edit_uri)
        self._with_views = bool(
            self.config.enabled and self.config.notebook_views and notebook_views.jupyter(config) is not None
        )
        if notebook_views.jupyter(config) is not None:  # with views or without: its cache, beside mkdocs.yml
            notebook_views.configure(config, self._root)
        site = Path(config.site_dir)
        if self.config.atomic_site and self._aside and self._staging is None and not i18n.is_nested_build(config):
            self._staging, self._finished = Staging(site), False  # written beside site_dir, then swapped in
            config.site_dir = str(self._staging.start())
        if self.config.enabled and self._engine is None:
            # The worker starts only when an example must run: a build served from the cache imports no torch
            watch = [Path(config.docs_dir), site, Path(config.site_dir)]
            self._engine = Engine.from_config(self.config, self._root, watch=watch, execute=self.config.execute)
        return config

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        if i18n.is_nested_build(config):  # another language of the same build: results are known
            return
        refuse_links(Path(config.docs_dir))
        self._pages = read_pages(config, serving=self._serving)
        self._examples, self._outcomes = {}, {}  # nothing of an earlier build
        assert self._recordings
        self._recordings.clear()
        if not self._engine:
            return
        self._examples = self._load({block.path for _, blocks in self._pages.values() for block in blocks})
        for example in (e for e in self._examples.values() if isinstance(e, Example)):
            for problem in notebooks.foreign_notes(example, i18n.site_languages(config)):
                log.warning(problem)  # a note no reader would get: fails a strict build
        self._outcomes = self._run([e for e in self._examples.values() if isinstance(e, Example)])
        self._read_recordings()
        problems = [
            p for uri, (_, blocks) in self._pages.items() for block in blocks if (p := self._problem(uri, block))
        ]
        if problems and not self._serving:
            raise PluginError(f"{len(problems)} example block(s) failed:\n\n" + "\n\n".join(grouped(problems)))
        for problem in problems:
            # Not a warning: under `strict: true` a warning aborts the rebuild, and `serve` would keep
            # the reader waiting instead of showing the error box on the page
            log.info(f"FAILED (shown on its page; `mkdocs build` stops here): {problem}")

    def on_serve(self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable) -> LiveReloadServer:
        server.watch(str(self.examples_dir))  # an edited example rebuilds the pages
        for folder in self._recordings.folders() if self._recordings else []:
            server.watch(str(folder))
        return server

    def _add_assets(self, files: Files, *, config: MkDocsConfig) -> Files:
        for asset in self._assets:
            files.append(File.generated(config, asset, abs_src_path=str(Path(__file__).parent / asset)))
        return files

    @event_priority(-150)  # after static-i18n (-100) has sorted this language's files
    def _add_views(self, files: Files, *, config: MkDocsConfig) -> Files:
        self._views = {}
        if self._with_views and self._engine:
            pages = {uri: (title, list(self.examples_of(uri))) for uri, (title, _) in self._pages.items()}
            self._views = notebook_views.add(
                files, config, root=self._root, built=self._built(), pages=pages, examples_folder=self.config.folder
            )
        self._view_urls = {view.example: view.url for view in self._views.values()}
        return files

    on_files = CombinedEvent(_add_assets, _add_views)

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        lang = i18n.page_language(page, config)
        if self._engine:
            markdown = error_index.replace_marker(markdown, lambda: self._error_index(page, lang))
            markdown = error_index.replace_marker(markdown, lambda: self._changes(page, lang), changes.MARKER)
        blocks = find_blocks(markdown)
        if not blocks:
            return markdown
        downloads = self._downloads(blocks, page, lang, i18n.prefix(config, lang))
        at_top = self._take_away_at_top(page)
        firsts = {b.path: b for b in reversed(blocks)}  # the first block of each example on the page
        sources = Sources()  # the environments of the page's outputs, said once at its end

        def render(block: Block) -> str:
            text = self._render(page.file.src_uri, block, lang, sources)
            if not at_top and firsts[block.path] is block and block.path in downloads:
                text += "\n" + downloads[block.path]
            return text

        markdown = replace_blocks(markdown, blocks, render)
        if at_top and downloads:  # under the title, where a reader looks for them
            markdown = under_title(markdown, "".join(downloads.values()))
        return markdown + sources.block(lang) + self._checks(blocks, lang)

    def _downloads(self, blocks: list[Block], page: Page, lang: str, prefix: str) -> dict[str, str]:
        """The take-away line of each example of the page that built, in the order the page embeds them;
        ``prefix``: the language's folder, whose downloads carry that language's notes."""
        root = "../" * page.url.count("/")  # the site's root, relative to this page
        downloads = root + prefix
        lines = {}
        for path in dict.fromkeys(block.path for block in blocks):
            example = self._examples.get(path)
            if isinstance(example, Example) and self._downloadable(path):
                view = self._view_urls.get(example.path)
                lines[path] = render_downloads(
                    downloads, example, self._colab(example), lang=lang, view=root + view if view else None
                )
        return lines

    def _take_away_at_top(self, page: Page) -> bool:
        """Where the page's front matter puts its take-away lines (``take_away``): ``top`` (the default),
        or ``under-example``, under the first block of each example (a page whose example is an aside)."""
        where = page.meta.get("take_away", "top")
        if where not in ("top", "under-example"):
            log.warning(
                f"{self._docs}/{page.file.src_uri}: front matter `take_away: {where}` is neither `top` nor "
                "`under-example`; the take-away line goes at the top"
            )
        return where != "under-example"

    def _checks(self, blocks: list[Block], lang: str) -> str:
        """The line on the torch releases the page's examples were checked on, where recordings add any."""
        if not self._recordings:
            return ""
        built = self._site_env()
        recorded, differ = {}, set()
        for path in dict.fromkeys(b.path for b in blocks):
            example = self._examples.get(path)
            if isinstance(example, Example) and path in self._outcomes:
                recorded[path] = self._recordings.checked(example)
                differ |= differing(example, self._outcomes[path].result, recorded[path])
        if not any(recorded.values()):
            return ""
        return render_checks(built, recorded, self.config.folder, lang=lang, differ=differ)

    def _link_titles(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Each code block's title, the example's file, links to that file in the repository."""
        repository = github(config.repo_url)
        if not repository or not self._examples:
            return html
        known = {e.display for e in self._examples.values() if isinstance(e, Example)}
        return link_titles(html, repository, known, self._branch)

    def _view_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        view = self._views.get(page.file.src_uri)
        return notebook_views.content(html, page, view) if view else html

    on_page_content = CombinedEvent(_link_titles, _view_content)

    def on_page_context(
        self, context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
    ) -> TemplateContext:
        if view := self._views.get(page.file.src_uri):  # after static-i18n's (50), which skips views
            notebook_views.alternates(config, view)
        return context

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        return notebook_views.slim(output, page) if page.file.src_uri in self._views else output

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
        built = self._built() if self._engine else []
        for lang in i18n.languages(config) if self._engine else ():  # each language's downloads, with its notes
            folder = Path(config.site_dir) / i18n.prefix(config, lang) / "downloads"
            notebooks.write_downloads(folder, built, lang=lang)
        if self._engine and self._recordings and PICKER[1] in self._assets:  # what the torch picker fetches
            results = [(example, result) for example, result, _ in built]
            picker.write(Path(config.site_dir), self._site_env(), self._recordings.found, results,
                         self.config.max_output)  # fmt: skip
        self._end_build()

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

    on_post_build = CombinedEvent(_hold_jupyter_cache, _release_jupyter_cache, _write_downloads, _site_written)

    def on_build_error(self, *, error: Exception) -> None:
        self._end_build()
        self._finished = False  # a strict build with warnings, too, fails after its last event

    def on_shutdown(self) -> None:
        self._swap_site()  # a build cut short (Ctrl-C) or failed leaves site_dir as it was
        if self._engine:
            self._engine.close()
            self._engine = None

    # --- steps -------------------------------------------------------------------

    def _shown(self, src_uri: str) -> str:
        """A page as messages name it: ``docs/en/x.md``."""
        return f"{self._docs}/{src_uri}"

    def _error_index(self, page: Page, lang: str) -> str:
        """The index of the errors shown on the pages of ``page``'s language tree."""
        pages, here = self._tree(page, lang)
        examples = {path: e for path, e in self._examples.items() if isinstance(e, Example)}
        results = {path: [o.result, *self._recorded_results(o.example)] for path, o in self._outcomes.items()}
        return error_index.render(error_index.collect(pages, examples, results), here, lang)

    def _changes(self, page: Page, lang: str) -> str:
        """The page "What changed between torch releases" of ``page``'s language tree (publish/changes.py)."""
        pages, here = self._tree(page, lang)
        examples = {path: e for path, e in self._examples.items() if isinstance(e, Example)}
        built = {path: o.result for path, o in self._outcomes.items() if o.failure is None}
        recorded = {path: self._recordings.checked(e) for path, e in examples.items()} if self._recordings else {}
        found = changes.collect(pages, examples, built, recorded)
        return changes.render(found, self._site_env(), here, self.config.folder, lang)

    def _tree(self, page: Page, lang: str) -> tuple[dict[str, tuple[str, list[Block]]], str]:
        """The pages of ``page``'s language tree (by their path in it), and ``page``'s path there."""
        first = page.file.src_uri.split("/", 1)[0]
        scope = f"{first}/" if first == lang else ""
        pages = {uri.removeprefix(scope): value for uri, value in self._pages.items() if uri.startswith(scope)}
        return pages, page.file.src_uri.removeprefix(scope)

    def _site_env(self) -> dict[str, str]:
        """The build's own environment (torch, device, Python): of any example it ran; empty before that."""
        return next((o.result.env for o in self._outcomes.values() if "torch" in o.result.env), {})

    def _load(self, paths: set[str]) -> dict[str, Example | ExampleError]:
        assert self._engine
        examples: dict[str, Example | ExampleError] = {}
        for path in sorted(paths):
            try:
                examples[path] = self._engine.load(path)
            except ExampleError as error:
                examples[path] = error
        return examples

    def _run(self, examples: list[Example]) -> dict[str, Outcome]:
        assert self._engine
        start = time.perf_counter()

        def report(outcome: Outcome, progress: Progress) -> None:
            if outcome.origin == "run":
                status = "FAILED" if outcome.failure else "ok"
                log.info(f"{progress} · {status} {outcome.example.path} in {outcome.result.seconds:.2f} s")

        try:
            outcomes = self._engine.run(examples, report)
        except (EngineError, PoolError) as error:
            raise PluginError(str(error)) from None
        if examples:
            log.info(summary(list(outcomes.values()), time.perf_counter() - start))
        if problem := self._engine.cache_problem():
            log.info(problem)  # not a warning: a cache that cannot be written must not fail a strict build
        if note := self._engine.sandbox_note():
            log.info(note)  # once: what confines examples here (network not isolated, no Landlock...)
        return outcomes

    def _problem(self, src_uri: str, block: Block) -> str | None:
        """What is wrong with one block, as a message naming the page, file and line; or None."""
        where = f"{self._shown(src_uri)}:{block.line}"
        if block.error:
            return f"{where}: {block.error}"
        example = self._examples.get(block.path)
        if isinstance(example, ExampleError):
            return f"{where}: {example}"
        if example and block.cell:
            try:
                example.cell(block.cell)
            except ExampleError as error:
                return f"{where}: {error}"
        outcome = self._outcomes.get(block.path)
        if outcome and outcome.failure:
            return f"{describe(outcome)}\n(embedded at {where})"
        return None

    def _render(self, src_uri: str, block: Block, lang: str, sources: Sources) -> str:
        page = self._shown(src_uri)
        if not self._engine:  # disabled: show the code, run nothing
            try:
                if block.error:
                    raise ExampleError(page, block.line, block.error)
                example = read_example(self.examples_dir, block.path, self.config.folder)
                return render_example(example, None, block.cell, lang=lang, limit=self.config.max_output)
            except ExampleError as error:
                message = str(error) if error.path == page else f"{page}:{block.line}: {error}"
                log.warning(message)  # fails a strict build, as with the plugin enabled
                return render_error(message, lang=lang)
        problem = self._problem(src_uri, block)
        if problem:
            return render_error(problem, lang=lang)
        loaded = self._examples.get(block.path)
        outcome = self._outcomes.get(block.path)
        if not isinstance(loaded, Example) or outcome is None:  # added to the page since pre-build, or lost
            message = f"{page}:{block.line}: example {block.path} was not run in this build"
            if not self._serving:  # a page must never be published without the output it claims
                raise PluginError(f"{message}; build again, and report it if it happens twice")
            return render_error(message, lang=lang)
        return render_example(
            loaded, outcome.result, block.cell, lang=lang, limit=self.config.max_output,
            published=self._recordings.of(loaded.path) if self._recordings else (), sources=sources,
        )  # fmt: skip

    def _read_recordings(self) -> None:
        """Every published recording, checked; those of examples that changed since are listed (not an error)."""
        assert self._recordings
        examples = {path: e for path, e in self._examples.items() if isinstance(e, Example)}
        try:
            self._recordings.read(examples, self._site_env(), log.info)
        except RecordingError as error:
            raise PluginError(str(error)) from None

    def _recorded_results(self, example: Example) -> list[Result]:
        return self._recordings.results(example) if self._recordings else []

    def _built(self) -> list[tuple[Example, Result, Recording | None]]:
        """Every example that built, by path, with its result and its first published recording on another
        device (of exactly this source), if any: what downloads and views show."""
        first = self._recordings.first if self._recordings else lambda example: None
        return [(o.example, o.result, first(o.example)) for _, o in sorted(self._outcomes.items()) if o.failure is None]

    def _downloadable(self, path: str) -> bool:
        outcome = self._outcomes.get(path)
        return bool(self._engine) and outcome is not None and outcome.failure is None

    def _colab(self, example: Example) -> str | None:
        """Colab opens the notebook committed under notebooks/ (see `make notebooks`) on GitHub."""
        repository = github(self._repo_url)
        return notebooks.colab_url(repository, example, self._branch) if repository else None

    def _end_build(self) -> None:
        """The end of a build, or of a failed one: nothing of it reaches the next (`mkdocs serve` rebuilds)."""
        self._views, self._view_urls = {}, {}
        if self._engine:
            self._engine.forget_failures()  # a failed example runs again on the next `serve` rebuild
