"""The fast preview of `mkdocs serve`: one language, no search index, no notebook views (the MkDocs plugin
`examples-serve`).

A rebuild of the whole site takes 5-7 s on a 2-core machine: both languages, the search index
of each (jieba for Chinese) and the notebook view of every example in both languages
(mkdocs-jupyter). A contributor who edits a page or an example waits for all of it before the
browser shows the change. Under `mkdocs serve` only, this plugin builds the pages of one
language and nothing else, the one named by the environment variable of the option
``variable`` (`PREVIEW`):

- `PREVIEW` unset or `en`: the English pages (unset: the option ``language``, by default the
  site's default language), at `/` as published;
- `PREVIEW=zh`: the Chinese pages, at `/` (static-i18n builds its default language at the
  root: the Chinese pages become the default for the preview);
- `PREVIEW=all`: the whole site as it is published (both languages, search, notebook views).

The language switcher is gone (static-i18n lists only the languages it builds), and the
search box finds nothing. `mkdocs build` never goes through here: it builds everything.
The file watcher of `mkdocs serve` looks at every watched file twice a second (watchdog's
polling observer, which reads every watched folder each time, on the server's cores, and sees a
change up to half a second late); under this plugin the system tells it of each change as it
happens (watchdog's observer for the platform: inotify on Linux, FSEvents on macOS), or, where
it has none, it looks every 0.1 s (the option ``polling``). Each rebuild lists the theme's files
to copy the static ones (MkDocs walks every folder of the theme, Material's icons included); the
folders of the installed theme are listed once for the whole `mkdocs serve`, less its hidden
folders (Material's icons, which MkDocs never copies), and the site's own (custom_dir) on each
rebuild.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from jinja2 import Environment, FileSystemLoader
from mkdocs.config import config_options
from mkdocs.config.base import Config, ValidationError
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.theme import Theme
from watchdog import events
from watchdog.observers import Observer
from watchdog.observers.api import ObservedWatch

from mkdocs_examples.mkdocs import i18n, upstream

log = get_plugin_logger("serve")

ALL = "all"  # the preview that builds the whole site
# what a change of a watched file is: not its opening, reading and closing (inotify reports those too),
# which every build does
CHANGES: list[type[events.FileSystemEvent]] = [
    events.FileCreatedEvent, events.FileModifiedEvent, events.FileAttribEvent, events.FileDeletedEvent,
    events.FileMovedEvent, events.FileClosedEvent,
]  # fmt: skip
KEY = "preview"  # config.extra[KEY]: the language of the fast preview; absent when building everything


class _Seconds(config_options.Type[float]):
    """A positive number of seconds (an integer is taken too: `polling: 1`)."""

    def __init__(self, default: float) -> None:
        super().__init__(float, default=default)

    def run_validation(self, value: object) -> float:
        if isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        seconds = super().run_validation(value)
        if not seconds > 0:
            raise ValidationError(f"Expected a positive number of seconds, got {seconds}")
        return seconds


class ServeConfig(Config):
    # the environment variable that names the preview's language (`all`: the whole site)
    variable = config_options.Type(str, default="PREVIEW")
    # the preview's language where that variable is unset or empty (none: the site's default language; `all`)
    language = config_options.Optional(config_options.Type(str))
    # seconds between two looks at the watched files, where the system tells of no change (MkDocs: 0.5)
    polling = _Seconds(default=0.1)


def preview(config: MkDocsConfig) -> str | None:
    """The one language the fast preview builds, or None when the whole site is built."""
    return config.extra.get(KEY)


class ServePlugin(BasePlugin[ServeConfig]):
    """Kept for the whole `mkdocs serve` (MkDocs keeps a plugin that has ``on_startup``): whether the process serves,
    and the templates of the installed theme's folders."""

    def __init__(self) -> None:
        super().__init__()
        self._serving = False
        self._listings: dict[str, tuple[str, ...]] = {}  # a folder of the installed theme: its templates

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self._forget()
        self._serving = command == "serve"

    def on_shutdown(self) -> None:
        self._forget()  # the next build of this process (tests) starts from `mkdocs build`, with nothing of this one

    def _forget(self) -> None:
        """Drop what this plugin keeps from one build to the next."""
        self._serving = False
        self._listings.clear()

    @event_priority(100)  # before static-i18n reads its languages and before the plugin examples-search
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        config.extra.pop(KEY, None)
        if self._serving:
            upstream.mkdocs_wrap_theme_env(config.theme, functools.partial(self._listed_once, theme=config.theme))
        variable = self.config.variable
        given = os.environ.get(variable, "").strip()
        wanted = given or self.config.language or ""
        if not self._serving or wanted == ALL:
            return config
        plugin = i18n.static_i18n(config)
        if plugin is None:
            return config
        languages = [lang.locale for lang in plugin.config.languages]  # all configured, built or not
        wanted = wanted or i18n.default_language(config)
        if wanted not in languages:
            named = f"{variable}={wanted}" if given else f"examples-serve's option language: {wanted}"
            raise PluginError(f"{named}: expected one of {', '.join(languages)} or {ALL}")
        if not i18n.is_nested_build(config):  # say it once per build
            everything = f"{variable}={ALL}: everything"
            log.info(f"fast preview: only the '{wanted}' pages, no search, no notebook views ({everything})")
        for lang in plugin.config.languages:  # what static-i18n's build_only_locale does
            lang.default = lang.build = lang.locale == wanted
        config.extra[KEY] = wanted
        search = config.plugins.get("material/search") or config.plugins.get("search")
        if search is not None:
            search.config.enabled = False
            upstream.static_i18n_empty_search_index(search)  # which static-i18n fills after its build, enabled or not
        examples = config.plugins.get("examples")
        if examples is not None:
            examples.build_no_notebook_views()  # before the plugin's on_config, which runs after this one
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None:
            # no notebook to render (the examples plugin adds none): no page read by jupytext to find out,
            # and no eviction of the notebooks it rendered for the last full build from its cache
            jupyter.config["ignore"] = ["*"]
            jupyter.config["cache"] = False
        return config

    def _listing(self, folder: str) -> tuple[str, ...]:
        """The templates of a folder of the installed theme, which no edit of the site changes, less those in a hidden
        folder (Material's icons: most of its files), whose names MkDocs' listing of the theme's files leaves out."""
        if folder not in self._listings:
            names = FileSystemLoader(folder).list_templates()
            self._listings[folder] = tuple(n for n in names if not any(part.startswith(".") for part in n.split("/")))
        return self._listings[folder]

    def _listed_once(self, env: Environment, *, theme: Theme) -> Environment:
        """``env`` with a loader that lists the folders of the installed theme once (the plugins' folders included,
        which they add to the theme's after this plugin's on_config)."""
        if type(env.loader) is FileSystemLoader:  # as MkDocs makes it
            installed = {str(path) for path in theme.dirs if path != theme.custom_dir}
            env.loader = _ListedOnce(env.loader, installed, self._listing)
        return env

    @event_priority(100)  # first: what the plugins after it watch is watched by the observer set here
    def on_serve(
        self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable[..., Any]
    ) -> LiveReloadServer:
        watched = []
        for path in [config.docs_dir, config.config_file_path, *config.theme.dirs]:  # what MkDocs watched so far
            try:
                server.unwatch(path)
            except KeyError:  # not watched: the theme's folders without --watch-theme
                continue
            watched.append(path)
        observer = _Changes(timeout=self.config.polling)
        upstream.mkdocs_set_observer(server, observer)  # not started yet: `serve` starts it
        for path in watched:
            server.watch(path)
        return server


class _ListedOnce(FileSystemLoader):
    """MkDocs' loader of the theme's templates, which lists the folders of ``installed`` once for the process
    (``listing``: the templates of such a folder, kept)."""

    def __init__(
        self, loader: FileSystemLoader, installed: set[str], listing: Callable[[str], tuple[str, ...]]
    ) -> None:
        super().__init__(loader.searchpath, loader.encoding, loader.followlinks)
        self.installed, self.listing = installed, listing

    def list_templates(self) -> list[str]:
        found: set[str] = set()
        for path in dict.fromkeys(self.searchpath):
            found.update(self.listing(path) if path in self.installed else FileSystemLoader(path).list_templates())
        return sorted(found)


class _Changes(Observer):  # type: ignore[misc, valid-type]  # the platform's observer, chosen when watchdog is imported
    """watchdog's observer for this platform, reporting the changes of files alone (:data:`CHANGES`)."""

    def schedule(
        self, event_handler: events.FileSystemEventHandler, path: str, *, recursive: bool = False,
        event_filter: list[type[events.FileSystemEvent]] | None = None, **more: Any,
    ) -> ObservedWatch:  # fmt: skip
        return super().schedule(event_handler, path, recursive=recursive, event_filter=event_filter or CHANGES, **more)
