"""Languages of a MkDocs build, with or without mkdocs-static-i18n: one place that answers; and what a hook keeps
for one build of every language (:class:`BuildState`).

mkdocs-static-i18n (the plugin named ``i18n``) builds its default language first, then each
other language inside the default one's ``on_post_build``, by calling MkDocs' ``build()``
again: every hook runs once per language, and only the outer build's ``on_post_build``
sees every language done (:func:`is_nested_build`). Without that plugin there is one
language, the theme's (Material's ``language``, or the MkDocs themes' ``locale``).

MkDocs is imported for type hints only: nothing here needs it at run time (the worker's
side, ``execute/child``, never imports this module anyway).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mkdocs_examples.texts import DEFAULT, LANGUAGES

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.pages import Page

T = TypeVar("T")

PLUGIN = "i18n"  # mkdocs-static-i18n's name under `plugins:`


def static_i18n(config: MkDocsConfig) -> Any | None:
    """mkdocs-static-i18n's plugin instance, where the site uses it (and has not disabled it)."""
    plugin = config.plugins.get(PLUGIN)
    if plugin is None or not plugin.config.get("enabled", True):
        return None
    return plugin


def build_language(config: MkDocsConfig) -> str:
    """The language this build (of several, with static-i18n) writes."""
    plugin = static_i18n(config)
    if plugin is not None and plugin.current_language:
        return str(plugin.current_language)
    return theme_language(config)


def theme_language(config: MkDocsConfig) -> str:
    """The language the theme is configured with (static-i18n sets it for each language it builds)."""
    language = config.theme.get("language") or config.theme.get("locale")  # Material; MkDocs' themes
    return str(language) if language else DEFAULT


def default_language(config: MkDocsConfig) -> str:
    """The language built at the site's root: static-i18n's default, or the only one."""
    plugin = static_i18n(config)
    if plugin is not None and plugin.default_language:
        return str(plugin.default_language)
    return theme_language(config)


def languages(config: MkDocsConfig) -> list[str]:
    """Every language the site builds, the default one first."""
    return _default_first(config, built=True)


def site_languages(config: MkDocsConfig) -> list[str]:
    """Every language the site has pages in, the default one first, whether this build builds it or not
    (a preview of `mkdocs serve` builds one of them)."""
    return _default_first(config, built=False)


def _default_first(config: MkDocsConfig, *, built: bool) -> list[str]:
    plugin = static_i18n(config)
    if plugin is None:
        return [theme_language(config)]
    default = default_language(config)
    names = plugin.build_languages if built else [str(lang.locale) for lang in plugin.config.languages]
    return [default, *(lang for lang in names if lang != default)]


def prefix(config: MkDocsConfig, lang: str | None = None) -> str:
    """The folder of language ``lang`` (default: this build's) under the site's root: ``""`` or ``"zh/"``."""
    lang = lang or build_language(config)
    return "" if lang == default_language(config) else f"{lang}/"


def page_language(page: Page, config: MkDocsConfig) -> str:
    """The language a page is written in.

    static-i18n's locale of the page's file; else the page's first folder when it names a
    language the site builds or the engine speaks (``zh/x.md``: static-i18n's folder
    structure, and the files a build adds under a language's folder); else this build's.
    """
    locale = getattr(page.file, "locale", None)
    if isinstance(locale, str) and locale:
        return locale
    first = page.file.src_uri.split("/", 1)[0]
    if first in languages(config) or first in LANGUAGES:
        return first
    return build_language(config)


def is_nested_build(config: MkDocsConfig) -> bool:
    """Whether this is a language build static-i18n runs inside the outer one (False without it).

    The outer build's ``on_pre_build`` runs before every language, its ``on_post_build``
    (below static-i18n's priority, -100) after all of them: where a build starts and ends.
    """
    plugin = static_i18n(config)
    return bool(plugin is not None and plugin.building)


class BuildState(Generic[T]):
    """What a site's hook keeps for one build, every language of it: made where the outer build starts
    (:meth:`start`), handed over and dropped where it ends (:meth:`finish`), dropped where it fails or the
    process ends (:meth:`drop`). `mkdocs serve` builds again in the same process, and a failed build never reaches
    ``on_post_build``: nothing of one build reaches the next.

    ``make``: the state of a build of ``config`` (None: nothing to keep, as for a build without search);
    ``end``: what dropping a state does besides (remove the log handler it added)."""

    def __init__(self, make: Callable[[MkDocsConfig], T | None], end: Callable[[T], object] | None = None) -> None:
        self._make, self._end = make, end
        self.now: T | None = None  # the state of the build under way, if any

    def start(self, config: MkDocsConfig) -> T | None:
        """A new state, in the first event of a build; inside a nested language build, the outer build's."""
        if not is_nested_build(config):
            self.drop()
            self.now = self._make(config)
        return self.now

    def finish(self, config: MkDocsConfig) -> T | None:
        """The state of the build, dropped, in its ``on_post_build``; None inside a nested language build (whose
        ``on_post_build`` reads :attr:`now`), or where none was made."""
        if is_nested_build(config):
            return None
        done = self.now
        self.drop()
        return done

    def drop(self) -> None:
        """Nothing kept: the build failed, the process ends, or another build starts."""
        done, self.now = self.now, None
        if done is not None and self._end is not None:
            self._end(done)
